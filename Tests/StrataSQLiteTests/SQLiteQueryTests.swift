import Foundation
import StrataCore
import Testing

@testable import StrataSQLite

/// Native SQL evaluation gives the evaluator's answers, and what the store declines (the list in
/// docs/SQLiteStore.md) falls back and still gives them.
@Suite struct SQLiteQueryTests {
    struct Seeded {
        let store: SQLiteStore
        let employees: [ObjectID]
        let departments: [ObjectID]
        let projects: [ObjectID]
    }

    static func seed() throws -> Seeded {
        let model = try testModel()
        let store = try openStore(temporaryStoreURL(), model: model)
        let d = try store.obtainPermanentIDs(for: "Department", count: 3)
        let e = try store.obtainPermanentIDs(for: "Employee", count: 8)
        let p = try store.obtainPermanentIDs(for: "Project", count: 2)
        let names: [Value] = [
            "lxz", "Émilie", "emilie", "Иван", "张伟", "bob", "O'Brien; DROP TABLE \"Employee\"; --", "Zoë",
        ]
        let heights: [Value] = [
            .double(1.7), .double(.nan), .double(1.62), .null, .double(1.85), .double(-0.0), .double(.infinity),
            .double(1.7),
        ]
        let ages: [Value] = [30, 41, .null, 25, 25, 60, 19, 33]
        let departmentOf = [0, 0, 1, 1, nil, 2, 0, nil]
        var inserts: [Snapshot] = []
        for (i, id) in d.enumerated() {
            let members = e.indices.filter { departmentOf[$0] == i }.map { e[$0] }
            inserts.append(
                makeSnapshot(
                    id, in: model, ["name": .string(["Engineering", "Ventes", "空"][i])],
                    relationships: ["employees": .toMany(members)]))
        }
        let projectMembers: [[Int]] = [[0, 1, 3], [1]]
        for (i, id) in e.enumerated() {
            let projects = p.indices.filter { projectMembers[$0].contains(i) }.map { p[$0] }
            inserts.append(
                makeSnapshot(
                    id, in: model,
                    [
                        "name": names[i], "height": heights[i], "age": ages[i],
                        "weight": i == 2 ? .float(.nan) : .float(Float(i) / 4),
                        "salary": i == 3 ? .decimal(.nan) : i == 4 ? .null : .decimal(Decimal(i * 1000)),
                        "active": .bool(i % 2 == 0),
                        "hired": i == 3 ? .null : .date(Date(timeIntervalSinceReferenceDate: Double(i) * 1e7)),
                        "photo": i == 0 ? .binary(Data()) : .binary(Data([UInt8(i), 1])), "badge": .uuid(UUID()),
                        "homepage": .uri(URL(string: "https://x.example/\(i)")!),
                        "big": .integer(Int64(i) * 1_000_000_007),
                    ],
                    relationships: ["department": .toOne(departmentOf[i].map { d[$0] }), "projects": .toMany(projects)])
            )
        }
        for (i, id) in p.enumerated() {
            inserts.append(
                makeSnapshot(
                    id, in: model, ["title": .string(["Apollo", "Gemini"][i])],
                    relationships: ["members": .toMany(projectMembers[i].map { e[$0] })]))
        }
        try store.save(SaveRequest(inserts: inserts))
        return Seeded(store: store, employees: e, departments: d, projects: p)
    }

    static func nativeCases(_ s: Seeded) throws -> [(String, FetchRequest)] {
        func employees(
            _ format: String, _ arguments: any PredicateArgument..., sorts: [Sort] = [], limit: Int? = nil,
            offset: Int = 0
        ) throws -> (String, FetchRequest) {
            (
                format,
                FetchRequest(
                    entityName: "Employee", predicate: try ObjectPredicate(format: format, argumentArray: arguments),
                    sorts: sorts, limit: limit, offset: offset, resultType: .objectIDs)
            )
        }
        return [
            try employees("name == 'lxz'"), try employees("name != 'lxz'"), try employees("name == nil"),
            try employees("age == nil"),
            try employees("age != nil"), try employees("age > 25"), try employees("age >= 25.0"),
            try employees("age < 30.5"),
            try employees("height > 1.7"), try employees("height >= 1.7"), try employees("height < 1.7"),
            try employees("height == 1.7"),
            try employees("height != 1.7"), try employees("height == 0"), try employees("height BETWEEN {1.6, 1.8}"),
            try employees("weight > 0.2"), try employees("weight == 0.25"), try employees("age IN {25, 60, nil}"),
            try employees("age IN {}"),
            try employees("name BEGINSWITH 'e'"), try employees("name BEGINSWITH[cd] 'EMI'"),
            try employees("name ENDSWITH[c] 'IE'"),
            try employees("name CONTAINS 'и'"), try employees("name CONTAINS[c] 'ИВ'"),
            try employees("name CONTAINS[d] 'e'"),
            try employees("name LIKE '*li?'"), try employees("name LIKE[cd] 'EMIL*'"),
            try employees("name LIKE '*\\\\**'"),
            try employees("name MATCHES '[a-z]+'"), try employees("name MATCHES[c] 'zo.'"),
            try employees("name MATCHES[d] 'Zoe'"),
            try employees("name BEGINSWITH ''"), try employees("name ENDSWITH[d] %@", "\u{301}"),
            try employees("name CONTAINS ''"),
            try employees("name LIKE ''"), try employees("name IN {'bob', 'zoë'}"),
            try employees("name IN[c] {'BOB', 'ZOË'}"), try employees("name < 'a'"), try employees("name > 'Ж'"),
            try employees("name == %@", "O'Brien; DROP TABLE \"Employee\"; --"),
            try employees("active == true"), try employees("active < true"),
            try employees("hired > %@", Date(timeIntervalSinceReferenceDate: 3e7)),
            try employees("photo == %@", Data()), try employees("photo != %@", Data([1, 1])),
            try employees("homepage == %@", URL(string: "https://x.example/2")!),
            try employees("big > 3000000000"), try employees("big == 5000000035.0"),
            try employees("salary > 2500"), try employees("salary == 3000"), try employees("salary != 3000"),
            try employees("salary == nil"),
            try employees("salary BETWEEN {1000, %@}", Decimal(string: "4000.5")!),
            try employees("NOT (salary < 2000)"), try employees("age < %@", Decimal(30)),
            try employees("TRUEPREDICATE", sorts: [Sort("salary", ascending: false)]),
            try employees("department.name == 'Engineering'"), try employees("department.name == nil"),
            try employees("department == nil"),
            try employees("department == %@", s.departments[1]), try employees("department != %@", s.departments[1]),
            try employees("SELF == %@", s.employees[2]), try employees("SELF IN %@", [s.employees[2], s.employees[5]]),
            try employees("ANY projects.title == 'Apollo'"), try employees("ALL projects.title BEGINSWITH 'A'"),
            try employees("NONE projects.title == 'Gemini'"),
            try employees("projects.@count == 0"), try employees("projects.@count >= 2"),
            try employees("projects CONTAINS %@", s.projects[1]),
            try employees("ANY projects == %@", s.projects[0]),
            try employees("NOT (age > 25) AND (name BEGINSWITH 'e' OR height == nil)"), try employees("TRUEPREDICATE"),
            try employees("FALSEPREDICATE"),
            try employees("age > 20", sorts: [Sort("name")], limit: 3, offset: 1),
            try employees(
                "TRUEPREDICATE", sorts: [Sort("height", ascending: false), Sort("name", options: .caseInsensitive)]),
            try employees("TRUEPREDICATE", sorts: [Sort("height")]),
            try employees("TRUEPREDICATE", sorts: [Sort("weight", ascending: false)]),
            try employees("TRUEPREDICATE", sorts: [Sort("department.name"), Sort("age", ascending: false)]),
            try employees("TRUEPREDICATE", sorts: [Sort("photo")]),
            try employees("TRUEPREDICATE", sorts: [Sort("homepage", ascending: false)]),
            try employees("TRUEPREDICATE", sorts: [Sort("badge")]),
            try employees("TRUEPREDICATE", sorts: [Sort("active", ascending: false), Sort("hired")]),
            try employees("TRUEPREDICATE", sorts: [Sort("big", ascending: false)], limit: 4),
            try employees(
                "TRUEPREDICATE", sorts: [Sort("name", options: [.caseInsensitive, .diacriticInsensitive])], offset: 2),
            (
                "Department ANY employees.height > 1.8",
                FetchRequest(
                    entityName: "Department", predicate: try ObjectPredicate(format: "ANY employees.height > 1.8"),
                    resultType: .objectIDs)
            ),
            (
                "Department employees.@count == 2",
                FetchRequest(
                    entityName: "Department", predicate: try ObjectPredicate(format: "employees.@count == 2"),
                    resultType: .objectIDs)
            ),
            (
                "Project ALL members.department.name == 'Engineering'",
                FetchRequest(
                    entityName: "Project",
                    predicate: try ObjectPredicate(format: "ALL members.department.name == 'Engineering'"),
                    resultType: .objectIDs)
            ),
            (
                "Department ANY employees.projects.title == 'Gemini'",
                FetchRequest(
                    entityName: "Department",
                    predicate: try ObjectPredicate(format: "ANY employees.projects.title == 'Gemini'"),
                    resultType: .objectIDs)
            ),
            (
                "Department ALL employees.projects.title == 'Apollo'",
                FetchRequest(
                    entityName: "Department",
                    predicate: try ObjectPredicate(format: "ALL employees.projects.title == 'Apollo'"),
                    resultType: .objectIDs)
            ),
            (
                "Department NONE employees.projects.title == 'Apollo'",
                FetchRequest(
                    entityName: "Department",
                    predicate: try ObjectPredicate(format: "NONE employees.projects.title == 'Apollo'"),
                    resultType: .objectIDs)
            ),
            (
                "count",
                FetchRequest(
                    entityName: "Employee", predicate: try ObjectPredicate(format: "age > 20"), limit: 2, offset: 1,
                    resultType: .count)
            ),
            (
                "dictionaries",
                FetchRequest(
                    entityName: "Employee", sorts: [Sort("name")], resultType: .dictionaries,
                    propertiesToFetch: ["name", "department.name", "salary"])
            ),
            (
                "snapshots",
                FetchRequest(
                    entityName: "Employee", predicate: try ObjectPredicate(format: "height > 0"), sorts: [Sort("age")])
            ),
        ]
    }

    @Test func nativeQueriesGiveTheEvaluatorsAnswers() throws {
        let seeded = try Self.seed()
        for (label, request) in try Self.nativeCases(seeded) {
            #expect(
                seeded.store.nativeEvaluationDeclineReason(request) == nil,
                "declined: \(label): \(seeded.store.nativeEvaluationDeclineReason(request) ?? "")")
            let native = try seeded.store.fetch(request)
            let reference = try seeded.store.fetchInMemory(request)
            #expect(native == reference, "\(label)")
        }
    }

    /// The documented fallbacks: each is declined, and the engine's path (``PersistentStore/fetch(_:)``,
    /// which evaluates in memory) still gives the evaluator's answer.
    static func fallbackCases(_ s: Seeded) throws -> [(String, FetchRequest)] {
        func employees(_ format: String, _ arguments: any PredicateArgument..., sorts: [Sort] = []) throws -> (
            String, FetchRequest
        ) {
            (
                format,
                FetchRequest(
                    entityName: "Employee", predicate: try ObjectPredicate(format: format, argumentArray: arguments),
                    sorts: sorts, resultType: .objectIDs)
            )
        }
        let otherStore = ObjectID(entityName: "Department", storeIdentifier: "ANOTHER-STORE", primaryKey: 1)
        return [
            try employees("name MATCHES '[unclosed'"), try employees("name MATCHES ''"),
            try employees("age > big"), try employees("30 < age"),
            try employees("name == 3"), try employees("active == 1"), try employees("height == %@", Double.nan),
            try employees("photo < %@", Data([3])), try employees("badge > %@", UUID()),
            try employees("homepage >= %@", URL(string: "https://a")!),
            try employees("age == 25", sorts: [Sort("age", options: .caseInsensitive)]), try employees("age ==[c] 25"),
            try employees("'lxz' IN name"), try employees("age BETWEEN {nil, 40}"), try employees("age IN {25, name}"),
            try employees("ANY department.name == 'Engineering'"), try employees("projects.title == 'Apollo'"),
            try employees("department == %@", otherStore), try employees("department == %@", s.employees[0]),
            try employees("department < %@", s.departments[0]),
            (
                "dictionary of a relationship",
                FetchRequest(entityName: "Employee", resultType: .dictionaries, propertiesToFetch: ["department"])
            ),
            try employees("TRUEPREDICATE", sorts: [Sort("department")]),
        ]
    }

    @Test func everyDocumentedFallbackIsDeclinedAndStillAnsweredRight() throws {
        let seeded = try Self.seed()
        for (label, request) in try Self.fallbackCases(seeded) {
            #expect(seeded.store.nativeEvaluationDeclineReason(request) != nil, "evaluated natively: \(label)")
            let viaEngine = Result { try seeded.store.fetch(request) }
            let reference = Result { try seeded.store.fetchInMemory(request) }
            switch (viaEngine, reference) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(label)")
            case (.failure(let a as StrataError), .failure(let b as StrataError)): #expect(a.code == b.code, "\(label)")
            default: Issue.record("\(label): \(viaEngine) vs \(reference)")
            }
        }
    }

    @Test func hostileValuesRoundTripVerbatimAndMatchOnlyThemselves() throws {
        let model = try testModel()
        let store = try openStore(temporaryStoreURL(), model: model)
        let hostile: [String] = [
            "'; DROP TABLE \"Employee\"; --", "\" OR 1=1 --", "Robert'); DELETE FROM _strata_metadata; --", "?",
            "?1 :a @b $c",
            "\\", "%_*?", "\u{0}NUL inside", "x' || (SELECT sql FROM sqlite_master) || '", "NaN",
        ]
        let ids = try store.obtainPermanentIDs(for: "Employee", count: hostile.count)
        try store.save(
            SaveRequest(
                inserts: zip(ids, hostile).map {
                    makeSnapshot(
                        $0, in: model, ["name": .string($1), "homepage": .uri(URL(string: "https://x/?q=%27")!)])
                }))
        let stored = try store.fetch(FetchRequest(entityName: "Employee")).snapshots()
        #expect(stored.map { $0.attributes[0] } == hostile.map { Value.string($0) })
        for (id, text) in zip(ids, hostile) {
            let request = FetchRequest(
                entityName: "Employee",
                predicate: .comparison(.init(.keyPath("name"), .equal, .constant(.string(text)))),
                resultType: .objectIDs)
            #expect(store.nativeEvaluationDeclineReason(request) == nil)
            #expect(try store.fetch(request).objectIDs() == [id], "\(text)")
            let like = FetchRequest(
                entityName: "Employee",
                predicate: .comparison(.init(.keyPath("name"), .contains, .constant(.string(text)))),
                resultType: .objectIDs)
            #expect(try store.fetch(like) == (try store.fetchInMemory(like)))
        }
        #expect(try store.metadata().modelVersionHash == model.versionHash)
        try store.save(SaveRequest(metadataChanges: ["'; DROP TABLE x; --": "\"); --"]))
        #expect(try store.metadata().userInfo["'; DROP TABLE x; --"] == "\"); --")
    }

    @Test func hostileNamesCannotReachSQLBecauseTheModelRejectsThem() {
        for name in ["Employee\"; DROP TABLE x; --", "a b", "_pk", "name'", "x]y", ""] {
            #expect(throws: StrataError.self, "\(name)") {
                _ = try Model(entities: [Entity("Thing", attributes: [Attribute(name, .string)])])
            }
            #expect(throws: StrataError.self, "\(name)") {
                _ = try Model(entities: [Entity(name, attributes: [Attribute("name", .string)])])
            }
        }
    }
}
