import Foundation
import Strata
import Testing

@Suite struct SaveRulesTests {
    @Test func nullifyRemovesTheDeletedObjectFromInverses() throws {
        let context = try makeContext()
        let d = context.insert(Department.self)
        let e = context.insert(Employee.self)
        d.name = "D"
        e.name = "E"
        e.department = d
        try context.save()
        context.delete(d)
        try context.save()
        #expect(e.department == nil)
        let stored = try context.coordinator.snapshot(for: e.objectID)
        #expect(stored?.relationship("department", in: e.entity) == .toOne(nil))
    }

    @Test func cascadeDeletesTransitively() throws {
        let model = try Model(entities: [
            Entity(
                "A", attributes: [Attribute("n", .string)],
                relationships: [Relationship("bs", to: "B", inverse: "a", toMany: true, deleteRule: .cascade)]),
            Entity(
                "B", attributes: [Attribute("n", .string)],
                relationships: [
                    Relationship("a", to: "A", inverse: "bs"),
                    Relationship("cs", to: "C", inverse: "b", toMany: true, deleteRule: .cascade),
                ]),
            Entity(
                "C", attributes: [Attribute("n", .string)], relationships: [Relationship("b", to: "B", inverse: "cs")]),
        ])
        let context = try makeContext(model)
        let a = try context.insert("A")
        let b = try context.insert("B")
        let c = try context.insert("C")
        for o in [a, b, c] { o["n"] = "x" }
        try b.setObject(a, for: "a")
        try c.setObject(b, for: "b")
        try context.save()
        context.delete(a)
        try context.save()
        for entity in ["A", "B", "C"] {
            #expect(try context.count(FetchRequest(entityName: entity)) == 0, "\(entity) left behind")
        }
    }

    @Test func denyBlocksTheSaveAndChangesNothing() throws {
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
        let team = try context.insert("Team")
        let player = try context.insert("Player")
        team["n"] = "Red"
        player["n"] = "P"
        try player.setObject(team, for: "team")
        try context.save()
        context.delete(team)
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .deleteDenied)
        #expect(error?.message.contains("players") == true && error?.message.contains("Team") == true)
        #expect(team.isDeleted, "the context keeps the user's delete so it can be fixed")
        #expect(
            try context.count(FetchRequest(entityName: "Team"), options: FetchOptions(includesPendingChanges: false))
                == 1)
        context.rollback()
        #expect(!team.isDeleted)
    }

    @Test func noActionLeavesTheInverseAsItIs() throws {
        let model = try Model(entities: [
            Entity(
                "Tag", attributes: [Attribute("n", .string)],
                relationships: [Relationship("notes", to: "Note", inverse: "tag", toMany: true, deleteRule: .noAction)]),
            Entity(
                "Note", attributes: [Attribute("n", .string)],
                relationships: [Relationship("tag", to: "Tag", inverse: "notes")]),
        ])
        let context = try makeContext(model)
        let tag = try context.insert("Tag")
        let note = try context.insert("Note")
        tag["n"] = "t"
        note["n"] = "n"
        try note.setObject(tag, for: "tag")
        try context.save()
        context.delete(tag)
        try context.save()
        #expect(
            try note.objectIDs(for: "tag") == [tag.objectID], "noAction keeps the dangling reference, as documented")
    }

    @Test func everyValidationRuleIsCheckedAndReportedInOneError() throws {
        let context = try makeContext()
        let e = context.insert(Employee.self)
        e.name = "" // minLength 1
        e.height = 3.5 // max 3
        e.level = 0 // min 1
        let long = context.insert(Employee.self)
        long.name = String(repeating: "x", count: 101) // maxLength 100
        let company = try context.insert("Company") // name required, never set
        _ = company
        let p1 = context.insert(Project.self)
        let p2 = context.insert(Project.self)
        p1.title = "Apollo"
        p2.title = "Apollo" // unique within the context
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.code == .validationFailed)
        let failures = error?.validationFailures ?? []
        let found = Set(failures.map { "\($0.objectID.entityName).\($0.property ?? "")" })
        #expect(
            found == ["Employee.name", "Employee.height", "Employee.level", "Company.name", "Project.title"],
            "\(failures)")
        #expect(failures.count == 6, "\(failures)")
        #expect(
            try context.count(
                FetchRequest(entityName: "Employee"), options: FetchOptions(includesPendingChanges: false)) == 0)
        #expect(e.objectID.isTemporary && context.hasChanges, "a failed save leaves the context as it was")
    }

    @Test func patternAndRelationshipCountsAreValidated() throws {
        let model = try Model(entities: [
            Entity(
                "Account",
                attributes: [Attribute("email", .string, validation: AttributeValidation(pattern: "[^@]+@[^@]+"))],
                relationships: [
                    Relationship("keys", to: "Key", inverse: "account", toMany: true, minimumCount: 1, maximumCount: 2),
                    Relationship("owner", to: "Key", inverse: "owned", isOptional: false),
                ]),
            Entity(
                "Key", attributes: [Attribute("k", .string)],
                relationships: [
                    Relationship("account", to: "Account", inverse: "keys"),
                    Relationship("owned", to: "Account", inverse: "owner", toMany: true),
                ]),
        ])
        let context = try makeContext(model)
        let account = try context.insert("Account")
        account["email"] = "not-an-email"
        let error = #expect(throws: StrataError.self) { try context.save() }
        let reasons = Dictionary(grouping: error?.validationFailures ?? [], by: { $0.property ?? "" })
        #expect(reasons["email"]?.first?.reason.contains("pattern") == true)
        #expect(reasons["keys"]?.first?.reason.contains("fewer than the minimum 1") == true)
        #expect(reasons["owner"]?.first?.reason.contains("required") == true)
        let keys = try (0..<3).map { _ -> ManagedObject in
            let k = try context.insert("Key")
            k["k"] = "k"
            return k
        }
        try account.setObjects(keys, for: "keys")
        try account.setObject(keys[0], for: "owner")
        account["email"] = "a@b"
        let tooMany = #expect(throws: StrataError.self) { try context.save() }
        #expect(tooMany?.validationFailures.map(\.property) == ["keys"])
        try account.remove(keys[2], from: "keys")
        try context.save()
    }

    @Test func uniqueConstraintIsCheckedAgainstTheStore() throws {
        let context = try makeContext()
        let p = context.insert(Project.self)
        p.title = "Apollo"
        try context.save()
        let q = context.insert(Project.self)
        q.title = "Apollo"
        let error = #expect(throws: StrataError.self) { try context.save() }
        #expect(error?.validationFailures.first?.reason.contains("already used by \(p.objectID)") == true)
        p.title = "Gemini" // freeing the title in the same save is fine
        try context.save()
    }

    @Test func badInputIsATypedError() throws {
        let context = try makeContext()
        let e = context.insert(Employee.self)
        #expect(throws: StrataError.self) { try e.set("tall", for: "height") }
        #expect(throws: StrataError.self) { try e.set(40_000, for: "level") }
        #expect(throws: StrataError.self) { try e.set("x", for: "salary") }
        #expect(throws: StrataError.self) { try e.setObject(e, for: "department") }
        let other = try makeContext()
        let foreign = other.insert(Department.self)
        let error = #expect(throws: StrataError.self) { try e.setObject(foreign, for: "department") }
        #expect(error?.code == .invalidObjectID)
        #expect(throws: StrataError.self) { _ = try context.insert("Spaceship") }
    }

    @Test func conflictListsPropertiesWithThreeValuesAndChangesNothing() throws {
        let first = try makeContext()
        let e = first.insert(Employee.self)
        e.name = "lxz"
        try first.save()
        let second = ObjectContext(coordinator: first.coordinator)
        let mine = try #require(try second.existingObject(with: e.objectID) as? Employee)
        e.height = 1.8
        try first.save()
        mine.height = 1.9
        let error = #expect(throws: StrataError.self) { try second.save() }
        #expect(error?.code == .conflict)
        let property = error?.conflicts.first?.properties.first { $0.property == "height" }
        #expect(property?.memoryValue == "1.9" && property?.snapshotValue == "1.7" && property?.storeValue == "1.8")
        #expect(mine.height == 1.9 && mine.version == 1 && second.hasChanges)
    }
}
