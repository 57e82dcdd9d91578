import Foundation
import Strata
import Testing

/// A refused save's error text stays short however many objects it refuses, while its fields
/// keep every conflict and validation failure.
///
/// The text used to list every conflict with every property value in full: a save of 1,000
/// changed objects, refused because another context had changed them, produced an error
/// description of 809,003 characters.
@Suite struct ConflictMessageTests {
    /// The lines of `text` after the first, which list conflicts or failures.
    private func listedLines(_ text: String) -> [Substring] {
        text.split(separator: "\n").dropFirst().filter { $0.hasPrefix("  - ") }
    }

    /// The counts line `error.description` should end with, from the error's fields.
    private func expectedCountsLine(_ entities: [String], noun: String) -> String {
        let others = entities.dropFirst(5)
        var counts: [String: Int] = [:]
        for entity in others { counts[entity, default: 0] += 1 }
        let byEntity = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        return "  - and \(others.count) more \(noun)s on "
            + byEntity.map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
    }

    @Test func aConflictOnAThousandObjectsListsFiveAndCountsTheRestByEntity() throws {
        let first = try makeContext()
        let second = ObjectContext(coordinator: first.coordinator)
        for index in 0..<995 { first.insert(Department.self).name = "department \(index)" }
        for index in 0..<5 { first.insert(Employee.self).name = "employee \(index)" }
        try first.save()

        let departments = try second.fetch(Department.self)
        let employees = try second.fetch(Employee.self)
        #expect(departments.filter { $0.name.isEmpty }.isEmpty && employees.filter { $0.name.isEmpty }.isEmpty)
        for department in try first.fetch(Department.self) { department.name += " renamed first" }
        for employee in try first.fetch(Employee.self) { employee.name += " renamed first" }
        try first.save()
        for department in departments { department.name += " renamed second" }
        for employee in employees { employee.name += " renamed second" }

        let error = try #require(throws: StrataError.self) { try second.save() }
        #expect(error.code == .conflict)
        #expect(error.conflicts.count == 1000, "the field keeps every conflict")
        #expect(
            Set(error.conflicts.map(\.objectID)) == Set((departments as [ManagedObject] + employees).map(\.objectID)))
        #expect(error.conflicts.allSatisfy { $0.properties.map(\.property) == ["name"] })

        let text = error.description
        let lines = listedLines(text)
        #expect(lines.count == 6)
        #expect(lines.prefix(5).map(String.init) == error.conflicts.prefix(5).map { "  - \($0)" })
        #expect(
            lines.last.map(String.init)
                == expectedCountsLine(error.conflicts.map(\.objectID.entityName), noun: "conflict"))
        #expect(text.contains("and 995 more conflicts on "))
        #expect(text.count < 2_000, "\(text.count) characters")
        #expect(error.localizedDescription == text)
    }

    @Test func aConflictOnALargeToManyRelationshipShowsItsValuesShortened() throws {
        let first = try makeContext()
        let second = ObjectContext(coordinator: first.coordinator)
        let department = first.insert(Department.self)
        department.name = "sales"
        for index in 0..<2_000 {
            let employee = first.insert(Employee.self)
            employee.name = "employee \(index)"
            employee.department = department
        }
        try first.save()

        let stale = try #require(try second.fetch(Department.self).first)
        #expect(stale.employees.count == 2_000)
        let hire = first.insert(Employee.self)
        hire.name = "hired by the first"
        hire.department = department
        try first.save()
        let other = second.insert(Employee.self)
        other.name = "hired by the second"
        other.department = stale

        let error = try #require(throws: StrataError.self) { try second.save() }
        let conflict = try #require(error.conflicts.first { $0.objectID == stale.objectID })
        let employees = try #require(conflict.properties.first { $0.property == "employees" })
        #expect(employees.memoryValue.components(separatedBy: ", ").count == 2_001, "the field keeps every target")
        #expect(employees.storeValue.components(separatedBy: ", ").count == 2_001)
        let text = error.description
        #expect(text.count < 3_000, "\(text.count) characters")
        #expect(text.contains("… (\(employees.memoryValue.count) characters)"))
    }

    @Test func aThousandValidationFailuresListFiveAndCountTheRest() throws {
        let context = try makeContext()
        let department = context.insert(Department.self)
        department.name = ""
        for _ in 0..<999 { context.insert(Employee.self).name = "" }

        let error = try #require(throws: StrataError.self) { try context.save() }
        #expect(error.code == .validationFailed)
        #expect(error.validationFailures.count == 1000, "the field keeps every failure")
        let lines = listedLines(error.description)
        #expect(lines.count == 6)
        #expect(lines.prefix(5).map(String.init) == error.validationFailures.prefix(5).map { "  - \($0)" })
        #expect(
            lines.last.map(String.init)
                == expectedCountsLine(error.validationFailures.map(\.objectID.entityName), noun: "validation failure"))
        #expect(error.description.contains("and 995 more validation failures on "))
        #expect(error.description.count < 2_000, "\(error.description.count) characters")
    }

    @Test func aDeleteThatAThousandDenyRulesBlockNamesFiveAndCountsTheRest() throws {
        let model = try Model(entities: [
            Entity(
                "Team", attributes: [Attribute("n", .string)],
                relationships: [Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .deny)]
            ),
            Entity(
                "Player", attributes: [Attribute("n", .string)],
                relationships: [Relationship("team", to: "Team", inverse: "players")]),
        ])
        let context = try makeContext(model)
        var teams: [ManagedObject] = []
        for index in 0..<1000 {
            let team = try context.insert("Team")
            let player = try context.insert("Player")
            team["n"] = .string("team \(index)")
            player["n"] = .string("player \(index)")
            try player.setObject(team, for: "team")
            teams.append(team)
        }
        try context.save()
        for team in teams { context.delete(team) }

        let error = try #require(throws: StrataError.self) { try context.save() }
        #expect(error.code == .deleteDenied)
        #expect(error.message.components(separatedBy: "still has 1 target(s)").count - 1 == 5)
        #expect(error.message.hasSuffix("; and 995 more object(s) whose deny rules block it"))
        #expect(error.description.count < 1_000, "\(error.description.count) characters")
    }

    @Test func aLongReasonIsShortenedInTheTextAndKeptInTheField() {
        let reason = "\"" + String(repeating: "x", count: 100_000) + "\" does not match the pattern [a-z]{1,3}"
        let failure = ValidationFailure(objectID: .temporary(entityName: "Employee"), property: "name", reason: reason)
        let error = StrataError(
            .validationFailed, "1 validation failure(s); nothing was saved", validationFailures: [failure])
        #expect(error.validationFailures[0].reason == reason)
        #expect(error.description.count < 1_000)
        #expect(error.description.contains("… (\(reason.count) characters)"))
        #expect(!error.description.contains("more validation failure"), "one failure: nothing to count")
    }
}
