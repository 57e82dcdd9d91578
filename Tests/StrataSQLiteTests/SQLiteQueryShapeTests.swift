import CStrataSQLite
import Foundation
import StrataCore
import Testing

@testable import StrataSQLite

/// A fetch of a request shape seen before reuses its statement and binds only the constants, and
/// answers exactly as a fetch that builds its SQL anew.
@Suite struct SQLiteQueryShapeTests {
    /// A small seedable generator, so a failing case can be replayed.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }
    }

    static let names: [String] = ["", "a", "Émilie", "emilie", "EMILIE", "Иван", "张伟", "bob", "Zoë", "zoe", "e\u{301}"]

    /// Employees with names, ages, heights (NaN and nil among them), weights, salaries (NaN and
    /// nil among them) and flags drawn from small sets, so random constants often match.
    static func seed(_ store: SQLiteStore, count: Int) throws -> [ObjectID] {
        let model = store.model
        var generator = Generator(state: 7)
        let ids = try store.obtainPermanentIDs(for: "Employee", count: count)
        var inserts: [Snapshot] = []
        for (i, id) in ids.enumerated() {
            let height: Value = [.null, .double(.nan), .double(1.5), .double(1.75), .double(-0.0)][generator.below(5)]
            let salary: Value = [.null, .decimal(.nan), .decimal(1000), .decimal(Decimal(string: "2500.5")!)][
                generator.below(4)]
            inserts.append(
                makeSnapshot(
                    id, in: model,
                    [
                        "name": .string(generator.pick(names)),
                        "age": generator.below(4) == 0 ? .null : .integer(Int64(20 + generator.below(5))),
                        "height": height, "weight": generator.below(3) == 0 ? .float(.nan) : .float(Float(i % 3)),
                        "salary": salary, "active": generator.below(3) == 0 ? .null : .bool(i % 2 == 0),
                        "small": .integer(Int64(i % 7)), "big": .integer(Int64(i)),
                    ]))
        }
        try store.save(SaveRequest(inserts: inserts))
        return ids
    }

    /// A random comparison on an attribute of Employee: `s` draws its structure (key, operator,
    /// options, list length), `c` its constants (nil, NaN, empty strings and numbers of every kind
    /// among them).
    static func comparison(_ s: inout Generator, _ c: inout Generator) -> ObjectPredicate {
        func string() -> Value { c.below(8) == 0 ? .null : .string(c.pick(names)) }
        // The kind of a number is part of the structure; nil and NaN are among its constants.
        func number() -> Value {
            let kind = s.below(4)
            switch c.below(8) {
            case 0: return .null
            case 1: return kind == 2 ? .decimal(.nan) : .double(.nan)
            default:
                switch kind {
                case 0: return .double(Double(c.below(5)) / 2 + 1)
                case 1: return .float(Float(c.below(3)))
                case 2: return .decimal(Decimal(c.below(3000)))
                default: return .integer(Int64(18 + c.below(8)))
                }
            }
        }
        func compare(
            _ key: String, _ op: ObjectPredicate.Operator, _ rhs: ObjectPredicate.Operand,
            _ options: ObjectPredicate.Options = []
        ) -> ObjectPredicate {
            .comparison(.init(.keyPath(PropertyPath(key)), op, rhs, options: options))
        }
        let options: [ObjectPredicate.Options] = [
            [], [], .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive],
        ]
        switch s.below(9) {
        case 0, 1:
            let op = s.pick([ObjectPredicate.Operator.equal, .notEqual, .less, .greaterOrEqual])
            return compare("name", op, .constant(string()), s.pick(options))
        case 2:
            let op = s.pick([ObjectPredicate.Operator.beginsWith, .endsWith, .contains, .like])
            return compare("name", op, .constant(string()), s.pick(options))
        case 3:
            let members = (0..<s.below(5)).map { _ in ObjectPredicate.Operand.constant(string()) }
            return compare("name", .in, .list(members), s.pick(options))
        case 4:
            let key = s.pick(["age", "height", "weight", "salary", "small", "big"])
            let op = s.pick([ObjectPredicate.Operator.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual])
            return compare(key, op, .constant(number()))
        case 5:
            let key = s.pick(["age", "height", "salary"])
            let members = (0..<s.below(5)).map { _ in ObjectPredicate.Operand.constant(number()) }
            return compare(key, .in, .list(members))
        case 6:
            let key = s.pick(["age", "height", "salary"])
            return compare(key, .between, .list([.constant(number()), .constant(number())]))
        case 7:
            return compare(
                "active", s.pick([.equal, .notEqual]), .constant(c.pick([.null, .bool(true), .bool(false)])))
        default:
            // A run of == on one key: the builder merges it into one IN list.
            let key = s.pick(["name", "age"])
            return .or(
                (0..<(1 + s.below(3))).map { _ in compare(key, .equal, .constant(key == "name" ? string() : number()))
                })
        }
    }

    /// A random predicate of one to three comparisons under AND, OR and NOT.
    static func predicate(_ s: inout Generator, _ c: inout Generator) -> ObjectPredicate {
        switch s.below(6) {
        case 0: return .and([comparison(&s, &c), comparison(&s, &c)])
        case 1: return .or([comparison(&s, &c), .and([comparison(&s, &c), comparison(&s, &c)])])
        case 2: return .not(comparison(&s, &c))
        default: return comparison(&s, &c)
        }
    }

    /// A random request of Employee, of one of 40 structures: a random predicate, and sometimes
    /// sorts, a limit, an offset and another result type; its constants vary freely.
    static func request(_ c: inout Generator) -> FetchRequest {
        var s = Generator(state: UInt64(c.below(40)))
        var request = FetchRequest(entityName: "Employee", predicate: predicate(&s, &c))
        if s.below(3) == 0 {
            request.sorts = [Sort(s.pick(["name", "age", "height", "salary"]), ascending: s.below(2) == 0)]
        }
        if s.below(3) == 0 { request.limit = c.below(6) }
        if s.below(4) == 0 { request.offset = c.below(4) }
        request.resultType = s.pick([.objectIDs, .objectIDs, .snapshots, .count, .dictionaries])
        if request.resultType == .dictionaries { request.propertiesToFetch = ["name", "age"] }
        return request
    }

    /// Every random request answers the same with plans reused and with the SQL built anew, and
    /// the evaluator agrees. The SQL is built once per shape (and for every request that has
    /// none and is not declined), and no shape's parameters ever differ from the builder's.
    static func expectCachedAnswersMatch(_ store: SQLiteStore, seed: UInt64, count: Int) throws {
        var c = Generator(state: seed)
        let table = store.schema.tables["Employee"]!
        var shapes: Set<SQLiteQueryShape> = []
        var builtEachTime = 0
        var builds = 0
        for _ in 0..<count {
            let request = request(&c)
            let before = store.queryBuildCounts.builds
            let cached = try store.fetch(request)
            builds += store.queryBuildCounts.builds - before
            if let shaped = SQLiteQueryShape.of(request, table: table, storeIdentifier: store.identifier) {
                shapes.insert(shaped.shape)
            } else if store.nativeEvaluationDeclineReason(request) == nil {
                builtEachTime += 1
            }
            let fresh = try store.fetch(request, reusingPlans: false)
            #expect(cached == fresh, "\(request)")
            #expect(cached == (try store.fetchInMemory(request)), "\(request)")
        }
        #expect(shapes.count <= SQLiteConnection.planCacheLimit)
        #expect(shapes.count < count / 3)
        #expect(builds == shapes.count + builtEachTime)
        #expect(store.queryBuildCounts.shapeMismatches == 0)
    }

    @Test func cachedPlansAnswerAsFreshlyBuiltOnes() throws {
        let store = try openStore(temporaryStoreURL())
        defer { try? store.close() }
        _ = try Self.seed(store, count: 60)
        try Self.expectCachedAnswersMatch(store, seed: 1, count: 1500)
    }

    /// A store reopened after a migration that added a column (shifting the columns after it)
    /// answers with plans of its own schema.
    @Test func cachedPlansAnswerAsFreshlyBuiltOnesAfterAMigration() throws {
        let url = temporaryStoreURL()
        let store = try openStore(url)
        _ = try Self.seed(store, count: 40)
        try Self.expectCachedAnswersMatch(store, seed: 2, count: 300)
        try store.close()

        let migrated = try testModel(version: "v2", extraAttribute: true)
        var db: OpaquePointer?
        #expect(sqlite3_open(url.location, &db) == SQLITE_OK)
        for sql in [
            "ALTER TABLE \"Employee\" ADD COLUMN \"nickname\" TEXT",
            "UPDATE \"Employee\" SET \"nickname\" = 'n' || \"_pk\"",
            "UPDATE \"_strata_metadata\" SET \"value\" = 'v2' WHERE \"key\" = 'modelVersionIdentifier'",
            "UPDATE \"_strata_metadata\" SET \"value\" = '\(migrated.versionHash)' WHERE \"key\" = 'modelVersionHash'",
        ] {
            #expect(sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK, "\(sql)")
        }
        sqlite3_close(db)

        let reopened = try openStore(url, model: migrated)
        defer { try? reopened.close() }
        try Self.expectCachedAnswersMatch(reopened, seed: 2, count: 300)
        let snapshot = try reopened.fetch(
            FetchRequest(entityName: "Employee", predicate: .key("big") == 3, limit: 1)
        ).snapshots()
        #expect(
            snapshot.first?.attributes[migrated.entity(named: "Employee")!.attributeIndex(named: "nickname")!] != .null)
    }

    /// A thousand lookups by key with different constants build the SQL once.
    @Test func lookupsOfOneShapeBuildTheSQLOnce() throws {
        let store = try openStore(temporaryStoreURL())
        defer { try? store.close() }
        let ids = try Self.seed(store, count: 50)
        let before = store.queryBuildCounts.builds
        for i in 0..<1000 {
            let key = Int64(i % 60)
            let found = try store.fetch(
                FetchRequest(entityName: "Employee", predicate: .key("big") == key, limit: 1)
            ).snapshots()
            #expect(found.map(\.objectID) == (key < 50 ? [ids[Int(key)]] : []))
        }
        #expect(store.queryBuildCounts.builds - before == 1)
    }

    /// What changes the SQL gives another shape: `nil` (`IS NULL`), an empty pattern, the length
    /// of an `IN` list, string options; what does not (the constant itself) does not.
    @Test func whatChangesTheSQLChangesTheShape() throws {
        let store = try openStore(temporaryStoreURL())
        defer { try? store.close() }
        let table = store.schema.tables["Employee"]!
        func shape(_ predicate: ObjectPredicate, limit: Int? = nil) -> SQLiteQueryShape? {
            SQLiteQueryShape.of(
                FetchRequest(entityName: "Employee", predicate: predicate, limit: limit), table: table,
                storeIdentifier: store.identifier)?.shape
        }
        #expect(shape(.key("name") == "a") == shape(.key("name") == "b"))
        #expect(shape(.key("name") == "a") != shape(.key("name") == nil))
        #expect(shape(.key("name") == "a") != shape(.key("name") == "a", limit: 1))
        #expect(shape(.key("name").beginsWith("a")) != shape(.key("name").beginsWith("")))
        #expect(shape(.key("name").beginsWith("a")) != shape(.key("name").beginsWith("a", .caseInsensitive)))
        func ages(_ values: [Value]) -> ObjectPredicate {
            .comparison(.init(.keyPath("age"), .in, .list(values.map { .constant($0) })))
        }
        #expect(shape(ages([1, 2])) != shape(ages([1, 2, 3])))
        #expect(shape(ages([1, 2])) == shape(ages([3, 4])))
        #expect(shape(ages([1, 2])) != shape(ages([1, 2, .null])))
        // What the builder declines, or evaluates by a pattern's validity, has no shape.
        #expect(shape(.key("height") == Double.nan) == nil)
        #expect(shape(.key("name").matches("a.*")) == nil)
        #expect(shape(.key("department.name") == "x") == nil)
    }

    /// Lookups from many threads at once (one reader connection each) answer correctly.
    @Test func concurrentLookupsAnswerCorrectly() throws {
        let store = try openStore(temporaryStoreURL())
        defer { try? store.close() }
        let ids = try Self.seed(store, count: 50)
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<300 {
                let key = Int64((i * 7 + thread) % 50)
                let found = try? store.fetch(
                    FetchRequest(entityName: "Employee", predicate: .key("big") == key, limit: 1)
                ).snapshots()
                if found?.map(\.objectID) != [ids[Int(key)]] { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.withLock { $0 } == 0)
    }
}
