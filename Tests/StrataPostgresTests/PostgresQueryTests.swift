import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataPostgres

/// Fetches pushed down to PostgreSQL answer exactly as the in-memory evaluator does, use the
/// model's indexes, and never let a value or a name reach SQL unquoted.
@Suite(.enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresQueryTests {
    static func model() throws -> Model {
        try Model(
            versionIdentifier: "v1",
            entities: [
                Entity(
                    "Department",
                    attributes: [Attribute("name", .string), Attribute("budget", .double, isOptional: true)],
                    relationships: [Relationship("employees", to: "Employee", inverse: "department", toMany: true)]),
                Entity(
                    "Employee",
                    attributes: [
                        Attribute("name", .string, isOptional: true),
                        Attribute("age", .integer32, isOptional: true),
                        Attribute("height", .double, isOptional: true),
                        Attribute("weight", .float, isOptional: true),
                        Attribute("salary", .decimal, isOptional: true),
                        Attribute("active", .boolean, isOptional: true),
                        Attribute("hired", .date, isOptional: true),
                        Attribute("photo", .binary, isOptional: true),
                        Attribute("badge", .uuid, isOptional: true),
                        Attribute("homepage", .uri, isOptional: true),
                        Attribute("level", .integer64),
                    ],
                    relationships: [
                        Relationship("department", to: "Department", inverse: "employees"),
                        Relationship("projects", to: "Project", inverse: "members", toMany: true),
                    ],
                    indexes: [
                        Entity.Index(name: "byLevel", properties: ["level"]),
                        Entity.Index(name: "byName", properties: ["name"]),
                    ]),
                Entity(
                    "Project", attributes: [Attribute("title", .string)],
                    relationships: [Relationship("members", to: "Employee", inverse: "projects", toMany: true)]),
            ])
    }

    static func openStore(_ model: Model? = nil) throws -> PostgresStore {
        let url = try PostgresTestServer.freshStoreURL()
        return try PostgresBackend().open(url, model: model ?? Self.model(), options: StoreOptions()) as! PostgresStore
    }

    static func snapshot(_ id: ObjectID, in model: Model, _ values: [String: Value]) -> Snapshot {
        let entity = model.entity(named: id.entityName)!
        var snapshot = Snapshot(objectID: id, entity: entity)
        for (name, value) in values { snapshot.attributes[entity.attributeIndex(named: name)!] = value }
        return snapshot
    }

    /// Names that fold differently in PostgreSQL than in Unicode (`ß`, Cyrillic, decomposed
    /// accents) and that hold `LIKE`'s special characters.
    static let names = [
        "", "a", "Émilie", "emilie", "EMILIE", "Иван", "иван", "straße", "STRASSE", "e\u{301}", "Zoë", "zoe", "a%b",
        "a_b", "axb", "back\\slash", "O'Brien", "bob", "Bob", "ab",
    ]
    static let dates = [0.0, 1.5, 86_400.25, -1_000.000001].map { Date(timeIntervalSinceReferenceDate: $0) }
    static let badges = [UUID(), UUID()]
    static let homepages = [URL(string: "https://a.example")!, URL(string: "https://b.example/x?y=1")!]

    struct Seeded {
        var departments: [ObjectID]
        var employees: [ObjectID]
        var projects: [ObjectID]
    }

    /// Departments, projects and employees whose values come from small sets (NaN, nil, -0.0,
    /// non-ASCII text among them), so random constants often match.
    static func seed(_ store: PostgresStore, employees count: Int) throws -> Seeded {
        let model = store.model
        var g = SeededGenerator(seed: 11)
        let departments = try store.obtainPermanentIDs(for: "Department", count: 4)
        let projects = try store.obtainPermanentIDs(for: "Project", count: 5)
        let employees = try store.obtainPermanentIDs(for: "Employee", count: count)
        var inserts: [Snapshot] = []
        let departmentEntity = model.entity(named: "Department")!
        var members: [[ObjectID]] = Array(repeating: [], count: projects.count)
        var staff: [[ObjectID]] = Array(repeating: [], count: departments.count)
        var employeeSnapshots: [Snapshot] = []
        for (i, id) in employees.enumerated() {
            func pick<T>(_ values: [T]) -> T { values.randomElement(using: &g)! }
            var s = snapshot(
                id, in: model,
                [
                    "name": Int.random(in: 0..<8, using: &g) == 0 ? .null : .string(pick(names)),
                    "age": Int.random(in: 0..<4, using: &g) == 0
                        ? .null : .integer(Int64.random(in: 20...24, using: &g)),
                    "height": pick([
                        .null, .double(.nan), .double(1.5), .double(1.75), .double(-0.0), .double(.infinity),
                    ]),
                    "weight": pick([.null, .float(.nan), .float(0), .float(1.5), .float(2)]),
                    "salary": pick([.null, .decimal(.nan), .decimal(1000), .decimal(Decimal(string: "2500.5")!)]),
                    "active": pick([.null, .bool(true), .bool(false)]),
                    "hired": Int.random(in: 0..<4, using: &g) == 0 ? .null : .date(pick(dates)),
                    "photo": pick([.null, .binary(Data()), .binary(Data([1, 2])), .binary(Data([1]))]),
                    "badge": pick([.null, .uuid(badges[0]), .uuid(badges[1])]),
                    "homepage": pick([.null, .uri(homepages[0]), .uri(homepages[1])]),
                    "level": .integer(Int64(i % 7)),
                ])
            let entity = model.entity(named: "Employee")!
            if Int.random(in: 0..<5, using: &g) > 0 {
                let d = Int.random(in: 0..<departments.count, using: &g)
                s.relationships[entity.relationshipIndex(named: "department")!] = .toOne(departments[d])
                staff[d].append(id)
            }
            var mine: [ObjectID] = []
            for (p, project) in projects.enumerated() where Int.random(in: 0..<3, using: &g) == 0 {
                mine.append(project)
                members[p].append(id)
            }
            s.relationships[entity.relationshipIndex(named: "projects")!] = .toMany(mine)
            employeeSnapshots.append(s)
        }
        for (d, id) in departments.enumerated() {
            var s = snapshot(id, in: model, ["name": .string(["Eng", "Émile", "ops", "R&D"][d])])
            s.relationships[departmentEntity.relationshipIndex(named: "employees")!] = .toMany(staff[d])
            inserts.append(s)
        }
        for (p, id) in projects.enumerated() {
            var s = snapshot(id, in: model, ["title": .string(["Alpha", "beta", "Gamma", "ÉTÉ", "straße"][p])])
            s.relationships[model.entity(named: "Project")!.relationshipIndex(named: "members")!] = .toMany(members[p])
            inserts.append(s)
        }
        try store.save(SaveRequest(inserts: inserts + employeeSnapshots))
        return Seeded(departments: departments, employees: employees, projects: projects)
    }

    // MARK: Random requests

    static func comparison(_ g: inout SeededGenerator, _ seeded: Seeded) -> ObjectPredicate {
        func pick<T>(_ values: [T]) -> T { values.randomElement(using: &g)! }
        func compare(
            _ key: String, _ op: ObjectPredicate.Operator, _ rhs: ObjectPredicate.Operand,
            _ options: ObjectPredicate.Options = [], _ modifier: ObjectPredicate.Modifier = .direct
        ) -> ObjectPredicate {
            .comparison(.init(.keyPath(PropertyPath(key)), op, rhs, modifier: modifier, options: options))
        }
        func text() -> Value { Int.random(in: 0..<10, using: &g) == 0 ? .null : .string(pick(names)) }
        func number() -> Value {
            switch Int.random(in: 0..<10, using: &g) {
            case 0: return .null
            case 1: return .double(.nan)
            case 2: return .double(Double(Int.random(in: 0...8, using: &g)) / 4)
            case 3: return .float(Float(Int.random(in: 0...4, using: &g)) / 2)
            case 4: return .decimal(Decimal(Int.random(in: 999...1001, using: &g)))
            case 5: return .double(-0.0)
            default: return .integer(Int64.random(in: -1...24, using: &g))
            }
        }
        func date() -> Value {
            let base = pick(dates).timeIntervalSinceReferenceDate
            return .date(Date(timeIntervalSinceReferenceDate: base + pick([0, 0, 0.0000004, -0.0000004, 1])))
        }
        let options: [ObjectPredicate.Options] = [
            [], [], .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive],
        ]
        let textOps: [ObjectPredicate.Operator] = [
            .equal, .notEqual, .less, .greaterOrEqual, .beginsWith, .endsWith, .contains,
        ]
        switch Int.random(in: 0..<17, using: &g) {
        case 0, 1:
            return compare("name", pick(textOps), .constant(text()), pick(options))
        case 2:
            let patterns = ["*", "", "?", "e*", "*e", "a\\%b", "a%b", "a_b", "a?b", "*\\\\*", "O'*", "*x*", "\\*"]
            return compare("name", .like, .constant(.string(pick(patterns))), pick(options))
        case 3:
            let patterns = ["[a-z]+", "E.*", "a|ab", "(?i)bob", ".*ß.*", "[[:alpha:]]*"]
            return compare("name", .matches, .constant(.string(pick(patterns))), pick(options))
        case 4:
            let members = (0..<Int.random(in: 0...4, using: &g)).map { _ in ObjectPredicate.Operand.constant(text()) }
            return compare("name", .in, .list(members), pick(options))
        case 5, 6:
            let key = pick(["age", "height", "weight", "salary", "level"])
            return compare(
                key, pick([.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]), .constant(number()))
        case 7:
            let key = pick(["age", "height", "salary", "level"])
            let members = (0..<Int.random(in: 0...4, using: &g)).map { _ in ObjectPredicate.Operand.constant(number()) }
            return compare(key, .in, .list(members))
        case 8:
            let low = number()
            let high = number()
            guard !low.isNull, !high.isNull else {
                return compare("age", .between, .list([.constant(.integer(20)), .constant(.integer(22))]))
            }
            return compare(pick(["age", "height", "weight"]), .between, .list([.constant(low), .constant(high)]))
        case 9:
            return compare(
                "hired", pick([.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]), .constant(date()))
        case 10:
            switch Int.random(in: 0..<4, using: &g) {
            case 0:
                return compare(
                    "active", pick([.equal, .notEqual]), .constant(pick([.null, .bool(true), .bool(false)])))
            case 1: return compare("badge", pick([.equal, .notEqual]), .constant(pick([.null, .uuid(badges[0])])))
            case 2:
                return compare("photo", pick([.equal, .notEqual]), .constant(pick([.null, .binary(Data([1, 2]))])))
            default: return compare("homepage", .in, .list([.constant(.uri(homepages[1])), .constant(.null)]))
            }
        case 11:
            return compare(
                "department.name", pick(textOps), .constant(.string(pick(["Eng", "émile", "OPS", "r&d", "E"]))),
                pick(options))
        case 12:
            let department: ObjectPredicate.Operand =
                Bool.random(using: &g) ? .constant(.null) : .objectID(pick(seeded.departments))
            return compare("department", pick([.equal, .notEqual]), department)
        case 13:
            let modifier = pick([ObjectPredicate.Modifier.any, .all, .none])
            return compare(
                "projects.title", pick(textOps), .constant(.string(pick(["Alpha", "alpha", "ete", "STRASSE", "a"]))),
                pick(options), modifier)
        case 14:
            return .comparison(
                .init(
                    .count("projects"), pick([.equal, .greater, .lessOrEqual]),
                    .constant(.integer(Int64.random(in: 0...3, using: &g)))))
        case 15:
            return compare("projects", .contains, .objectID(pick(seeded.projects)))
        default:
            let some = (0..<3).map { _ in ObjectPredicate.Operand.objectID(pick(seeded.employees)) }
            return .comparison(.init(.evaluatedObject, .in, .list(some)))
        }
    }

    static func predicate(_ g: inout SeededGenerator, _ seeded: Seeded) -> ObjectPredicate {
        switch Int.random(in: 0..<6, using: &g) {
        case 0: return .and([comparison(&g, seeded), comparison(&g, seeded)])
        case 1: return .or([comparison(&g, seeded), .and([comparison(&g, seeded), comparison(&g, seeded)])])
        case 2: return .not(comparison(&g, seeded))
        case 3: return .not(.or([comparison(&g, seeded), .not(comparison(&g, seeded))]))
        default: return comparison(&g, seeded)
        }
    }

    static func request(_ g: inout SeededGenerator, _ seeded: Seeded) -> FetchRequest {
        var request = FetchRequest(entityName: "Employee", predicate: predicate(&g, seeded))
        if Int.random(in: 0..<2, using: &g) == 0 {
            let keys = [
                "name", "age", "height", "weight", "salary", "hired", "active", "photo", "badge", "homepage", "level",
                "department.name",
            ]
            request.sorts = (0..<Int.random(in: 1...2, using: &g)).map { _ in
                let key = keys.randomElement(using: &g)!
                let options: ObjectPredicate.Options =
                    key == "name" && Int.random(in: 0..<4, using: &g) == 0 ? .caseInsensitive : []
                return Sort(PropertyPath(key), ascending: Bool.random(using: &g), options: options)
            }
        }
        if Int.random(in: 0..<3, using: &g) == 0 { request.limit = Int.random(in: 0...6, using: &g) }
        if Int.random(in: 0..<4, using: &g) == 0 { request.offset = Int.random(in: 0...4, using: &g) }
        request.resultType = [.objectIDs, .objectIDs, .snapshots, .count, .dictionaries].randomElement(using: &g)!
        if request.resultType == .dictionaries { request.propertiesToFetch = ["name", "salary", "department.name"] }
        if Int.random(in: 0..<8, using: &g) == 0 { request.objectIDs = Array(seeded.employees.prefix(20)) }
        return request
    }

    /// Random predicates, sorts and pages over every kind of attribute and relationship answer as
    /// the evaluator does, and most run in SQL.
    @Test func randomRequestsAnswerAsTheEvaluatorDoes() throws {
        let store = try Self.openStore()
        defer { try? store.close() }
        let seeded = try Self.seed(store, employees: 80)
        var g = SeededGenerator(seed: 2026)
        for _ in 0..<600 {
            let request = Self.request(&g, seeded)
            let native = try store.fetch(request)
            let reference = try store.fetchInMemory(request)
            #expect(native == reference, "\(request)")
            if native != reference { break }
        }
        let counts = store.queryCounts
        #expect(counts.native > 300)
        #expect(counts.candidates > 20)
        #expect(counts.inMemory < 60)
    }
}

/// The SQL of a fetch uses the model's indexes, binds every value and quotes every name.
@Suite(.enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresQueryPlanTests {
    /// A store with `count` employees of distinct levels and names, analyzed.
    static func analyzedStore(count: Int) throws -> PostgresStore {
        let store = try PostgresQueryTests.openStore()
        let ids = try store.obtainPermanentIDs(for: "Employee", count: count)
        let inserts = ids.enumerated().map { i, id in
            PostgresQueryTests.snapshot(
                id, in: store.model,
                ["name": .string("n\(i)"), "level": .integer(Int64(i)), "age": .integer(Int64(i % 50))])
        }
        try store.save(SaveRequest(inserts: inserts))
        try store.pool.withConnection { try $0.execute("ANALYZE \(store.schema.tables["Employee"]!.qualified)") }
        return store
    }

    /// PostgreSQL's plan for the statement `fetch` runs for `request`.
    static func plan(_ request: FetchRequest, in store: PostgresStore) throws -> String {
        var builder = PostgresQueryBuilder(schema: store.schema, storeIdentifier: store.identifier)
        let query = try builder.build(request, table: store.schema.tables[request.entityName]!)
        #expect(query.answer == .exact)
        let result = try store.pool.withConnection { try $0.queryOnce("EXPLAIN " + query.sql, query.parameters) }
        return (0..<result.rowCount).map { result.string($0, 0) }.joined(separator: "\n")
    }

    @Test func anIndexedEqualityReadsTheIndex() throws {
        let store = try Self.analyzedStore(count: 3000)
        defer { try? store.close() }
        let request = FetchRequest(entityName: "Employee", predicate: .key("level") == 1234)
        let plan = try Self.plan(request, in: store)
        #expect(plan.contains("Employee.index.byLevel"), "\(plan)")
        #expect(try store.fetch(request).snapshots().count == 1)
        #expect(store.queryCounts.native == 1)
    }

    @Test func aSortedLimitedFetchReadsTheIndexInOrder() throws {
        let store = try Self.analyzedStore(count: 3000)
        defer { try? store.close() }
        for ascending in [true, false] {
            let request = FetchRequest(
                entityName: "Employee", predicate: .key("age") < 40, sorts: [Sort("level", ascending: ascending)],
                limit: 5, resultType: .objectIDs)
            let plan = try Self.plan(request, in: store)
            #expect(plan.contains("Employee.index.byLevel"), "\(plan)")
            #expect(try store.fetch(request) == (try store.fetchInMemory(request)))
        }
    }

    /// Values that look like SQL are bound, so they are only ever compared; `LIKE`'s special
    /// characters in `BEGINSWITH`, `CONTAINS` and `ENDSWITH` are literal.
    @Test func hostileValuesAreOnlyCompared() throws {
        let store = try PostgresQueryTests.openStore()
        defer { try? store.close() }
        let hostile = [
            "'; DROP TABLE \"Employee\"; --", "\\'; SELECT pg_sleep(10); --", "a%", "_", "\\", "$1", "%%",
            "' OR '1'='1",
        ]
        let ids = try store.obtainPermanentIDs(for: "Employee", count: hostile.count)
        try store.save(
            SaveRequest(
                inserts: zip(ids, hostile).map { id, name in
                    PostgresQueryTests.snapshot(id, in: store.model, ["name": .string(name), "level": .integer(1)])
                }))
        for (id, name) in zip(ids, hostile) {
            for predicate: ObjectPredicate in [
                .key("name") == name, .key("name").beginsWith(name), .key("name").endsWith(name),
                .key("name") == .key("name") && .key("name").contains(name, .caseInsensitive),
            ] {
                let found = try store.fetch(
                    FetchRequest(entityName: "Employee", predicate: predicate, resultType: .objectIDs))
                #expect(try found.objectIDs().contains(id), "\(predicate)")
                #expect(
                    found
                        == (try store.fetchInMemory(
                            FetchRequest(entityName: "Employee", predicate: predicate, resultType: .objectIDs))))
            }
        }
        let percent = FetchRequest(entityName: "Employee", predicate: .key("name").contains("%"))
        #expect(try store.fetch(percent).snapshots().count == 2)
        #expect(try store.fetch(percent) == store.fetchInMemory(percent))
    }

    /// A key path that names no property is refused before any SQL is written.
    @Test func hostileKeyPathsAreRefused() throws {
        let store = try PostgresQueryTests.openStore()
        defer { try? store.close() }
        for key in ["name\"; DROP TABLE \"Employee\"; --", "department.\"name", "name) OR (1=1"] {
            let error = #expect(throws: StrataError.self) {
                try store.fetch(FetchRequest(entityName: "Employee", predicate: .key(PropertyPath(key)) == "x"))
            }
            #expect(error?.code == .unknownKey, "\(key)")
        }
        #expect(try store.fetch(FetchRequest(entityName: "Employee")).snapshots().isEmpty)
    }

    /// What the builder cannot write is answered in memory, counted, with the same answer.
    @Test func whatSQLCannotExpressIsAnsweredInMemory() throws {
        let store = try PostgresQueryTests.openStore()
        defer { try? store.close() }
        let seeded = try PostgresQueryTests.seed(store, employees: 30)
        _ = seeded
        let declined: [FetchRequest] = [
            FetchRequest(entityName: "Employee", predicate: .key("age") == .key("level")),
            FetchRequest(entityName: "Employee", predicate: .key("name").matches("(")),
            FetchRequest(entityName: "Employee", predicate: .key("photo") < Data([1])),
        ]
        for request in declined {
            guard (try? request.validated(for: store.model)) != nil else { continue }
            #expect(store.nativeEvaluationDeclineReason(request) != nil, "\(request)")
            let before = store.queryCounts.inMemory
            let answer = try? store.fetch(request)
            #expect(store.queryCounts.inMemory == before + 1)
            #expect(answer == (try? store.fetchInMemory(request)))
        }
    }
}
