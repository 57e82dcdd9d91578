import Foundation
import StrataConformance
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataPostgres

/// The conformance kit once more with every insert of the store going through binary `COPY`
/// (`copyRows=1`), so each value type, constraint and error takes that path too.
@Suite(.enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresCopyConformanceTests {
    static let subject = ConformanceSubject(backend: PostgresBackend()) {
        try PostgresTestServer.freshStoreURL(["copyRows": "1"])
    }

    @Test(arguments: ConformanceKit.checks)
    func postgresStoreConformsWhenEveryInsertIsACopy(_ check: ConformanceCheck) throws {
        try check.run(on: Self.subject)
    }
}

/// How many statements a save takes, and that a save through binary `COPY` keeps every
/// guarantee of one through `INSERT`: typed errors naming the object, nothing partial.
@Suite(.enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresSaveShapeTests {
    let model = ConformanceFixtures.model

    func open(_ url: StoreURL, options: [String: String] = [:]) throws -> PostgresStore {
        try #require(
            try PostgresBackend().open(url, model: model, options: StoreOptions(options: options)) as? PostgresStore)
    }

    /// `count` new `AllTypes` objects with distinct values of every type.
    func allTypes(_ store: PostgresStore, _ count: Int) throws -> [Snapshot] {
        try store.obtainPermanentIDs(for: "AllTypes", count: count).enumerated().map { index, id in
            let i = Int64(index)
            return Snapshot(
                objectID: id, version: 0,
                attributes: [
                    .integer(i % 30_000), .integer(-i), .integer(i * 1_000_003), .double(Double(i) / 3),
                    .float(Float(i) / 7), .decimal(Decimal(string: "-\(i).0\(i)")!), .string("s\(i)\u{0}é"),
                    .bool(i % 2 == 0), .date(Date(timeIntervalSinceReferenceDate: Double(i))),
                    .binary(Data([UInt8(i % 256), 0])), .uuid(UUID()),
                    index % 5 == 0 ? .null : .uri(URL(string: "https://x.org/\(i)")!),
                ],
                relationships: [])
        }
    }

    func projects(_ store: PostgresStore, titles: [String]) throws -> [Snapshot] {
        try store.obtainPermanentIDs(for: "Project", count: titles.count).enumerated().map { index, id in
            Snapshot(
                objectID: id, version: 0, attributes: [.string(titles[index]), .null],
                relationships: [.toMany([])])
        }
    }

    /// The statements and copies `body` runs on `store`.
    func counting(_ store: PostgresStore, _ body: () throws -> Void) rethrows -> PostgresStatementCounts {
        let before = store.statementCounts
        try body()
        let after = store.statementCounts
        var delta = PostgresStatementCounts()
        delta.statements = after.statements - before.statements
        delta.copies = after.copies - before.copies
        delta.roundTrips = after.roundTrips - before.roundTrips
        return delta
    }

    /// A batch delete of an entity with no relationships, nothing pointing to it and a predicate
    /// SQL decides is one `DELETE ... RETURNING` (and, with history on, the history's lock and
    /// row): no locking select first. It deletes what the predicate matches, records each delete
    /// in the history, and a predicate SQL cannot decide takes the general path with the same
    /// answer. Two round trips: the BEGIN goes with the DELETE, the history's lock and row with
    /// the COMMIT (the record needs the keys the DELETE returns).
    @Test(arguments: ["on", "off"])
    func aBatchDeleteOfAnEntityNothingRefersToIsOneStatement(_ history: String) throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url, options: ["history": history])
        defer { try? store.close() }
        let objects = try allTypes(store, 40)
        try store.save(SaveRequest(inserts: objects))
        let small = try ObjectPredicate(format: "i16 < %@", 10)
        let expected = objects.filter { if case .integer(let i) = $0.attributes[0] { i < 10 } else { false } }
        var result = BatchResult(objectIDs: [])
        let counts = try counting(store) { result = try store.batchDelete(entityName: "AllTypes", predicate: small) }
        #expect(result.objectIDs == expected.map(\.objectID).sorted())
        // BEGIN, the DELETE, (the history's lock and row,) COMMIT.
        #expect(counts.statements == (history == "on" ? 5 : 3))
        #expect(counts.roundTrips == 2)
        #expect(try store.snapshots(of: "AllTypes", among: nil).count == 30)
        if history == "on" {
            let deletes = try store.fetchHistory(HistoryRequest()).flatMap(\.changes).filter { $0.kind == .delete }
            #expect(Set(deletes.map(\.objectID)) == Set(result.objectIDs))
        }
        // A regular expression on a folded string: decided in memory, on the general path.
        let folded = try ObjectPredicate(format: "str MATCHES[c] %@", "S1.*")
        let matching = objects.dropFirst(10).filter {
            if case .string(let text) = $0.attributes[6] { text.lowercased().hasPrefix("s1") } else { false }
        }
        let general = try store.batchDelete(entityName: "AllTypes", predicate: folded)
        #expect(general.objectIDs == matching.map(\.objectID).sorted())
    }

    /// A batch delete of named objects (a batch delete of IDs) with history on builds its record
    /// while the server deletes them, in the same two round trips; when some were gone already,
    /// the record lists only the objects the delete found.
    @Test func aBatchDeleteOfNamedObjectsRecordsOnlyTheObjectsItDeleted() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url)
        defer { try? store.close() }
        let objects = try allTypes(store, 20)
        try store.save(SaveRequest(inserts: objects))
        let ids = objects.map(\.objectID)
        func named(_ ids: [ObjectID]) -> ObjectPredicate {
            .comparison(.init(.evaluatedObject, .in, .list(ids.map { .objectID($0) })))
        }
        var result = BatchResult(objectIDs: [])
        let counts = try counting(store) {
            result = try store.batchDelete(entityName: "AllTypes", predicate: named(Array(ids[0..<5]) + [ids[2]]))
        }
        #expect(result.objectIDs == Array(ids[0..<5]))
        #expect(counts.roundTrips == 2)
        result = try store.batchDelete(entityName: "AllTypes", predicate: named(ids[3..<8].reversed()))
        #expect(result.objectIDs == Array(ids[5..<8]))
        let recorded = try store.fetchHistory(HistoryRequest()).suffix(2).map {
            $0.changes.filter { $0.kind == .delete }.map(\.objectID.primaryKey)
        }
        #expect(recorded == [ids[0..<5].map(\.primaryKey), ids[5..<8].map(\.primaryKey)])
        #expect(try store.snapshots(of: "AllTypes", among: nil).count == 12)
    }

    @Test func insertsFromTheThresholdOnGoThroughOneCopyAndReadBackTheSame() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url, options: ["copyRows": "50", "history": "off"])
        defer { try? store.close() }
        let below = try allTypes(store, 49)
        let at = try allTypes(store, 50)
        let many = try allTypes(store, 400)
        let belowCounts = try counting(store) { try store.save(SaveRequest(inserts: below)) }
        let atCounts = try counting(store) { try store.save(SaveRequest(inserts: at)) }
        let manyCounts = try counting(store) { try store.save(SaveRequest(inserts: many)) }
        #expect(belowCounts.copies == 0)
        #expect(atCounts.copies == 1)
        #expect(manyCounts == atCounts)
        // BEGIN, the INSERT or the COPY, COMMIT; the BEGIN goes with the INSERT.
        #expect(belowCounts.statements == 3)
        #expect(belowCounts.roundTrips == 2)
        let stored = try store.snapshots(of: "AllTypes", among: nil)
        #expect(stored.map(\.attributes) == (below + at + many).map(\.attributes))
        #expect(stored.allSatisfy { $0.version == 1 })
    }

    @Test func decimalsKeepTheirValueThroughCopy() throws {
        let url = try PostgresTestServer.freshStoreURL(["copyRows": "1", "history": "off"])
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url)
        defer { try? store.close() }
        let texts = [
            "0", "1", "-1", "10000", "9999.9999", "0.0001", "-0.00012", "123456789012345678901234567890.5",
            "0.000000000000000000001", "1000000000000000000000000000000000000", "-42.4200", "3.14159",
        ]
        let decimals = texts.map { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX"))! } + [.nan]
        let ids = try store.obtainPermanentIDs(for: "AllTypes", count: decimals.count)
        var inserts: [Snapshot] = []
        for (id, decimal) in zip(ids, decimals) {
            var attributes = [Value](repeating: .null, count: 12)
            attributes[5] = .decimal(decimal)
            inserts.append(Snapshot(objectID: id, version: 0, attributes: attributes, relationships: []))
        }
        try store.save(SaveRequest(inserts: inserts))
        let stored = try store.snapshots(of: "AllTypes", among: nil).map { $0.attributes[5] }
        #expect(stored == decimals.map { Value.decimal($0) })
    }

    @Test func aUniqueViolationInsideACopyIsATypedErrorAndWritesNothing() throws {
        let url = try PostgresTestServer.freshStoreURL(["copyRows": "10"])
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url)
        defer { try? store.close() }
        var titles = (0..<100).map { "title \($0)" }
        titles[70] = "title 3"
        let inserts = try projects(store, titles: titles)
        let counts = counting(store) {
            let error = #expect(throws: StrataError.self) { try store.save(SaveRequest(inserts: inserts)) }
            #expect(error?.code == .uniqueConstraint)
            #expect(error?.location["entity"] == "Project")
            #expect(error?.location["key"] == "title")
            #expect(error?.message.contains("title 3") == true)
        }
        #expect(counts.copies == 1)
        #expect(try store.snapshots(of: "Project", among: nil).isEmpty)
        #expect(try store.lastHistoryToken() == nil)
        // The store goes on working on the same connections.
        try store.save(SaveRequest(inserts: try projects(store, titles: ["after"])))
        #expect(try store.snapshots(of: "Project", among: nil).count == 1)
    }

    @Test func aTakenKeyInsideACopyIsInvalidObjectIDAndWritesNothing() throws {
        let url = try PostgresTestServer.freshStoreURL(["copyRows": "10", "history": "off"])
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url)
        defer { try? store.close() }
        let first = try projects(store, titles: ["first"])
        try store.save(SaveRequest(inserts: first))
        var inserts = try projects(store, titles: (0..<50).map { "p\($0)" })
        inserts[30] = Snapshot(
            objectID: first[0].objectID, version: 0, attributes: [.string("again"), .null], relationships: [.toMany([])]
        )
        let error = #expect(throws: StrataError.self) { try store.save(SaveRequest(inserts: inserts)) }
        #expect(error?.code == .invalidObjectID)
        #expect(try store.snapshots(of: "Project", among: nil).map(\.attributes) == [[.string("first"), .null]])
    }

    @Test func aValueNoColumnHoldsStopsTheCopyNamingTheObject() throws {
        let url = try PostgresTestServer.freshStoreURL(["copyRows": "10", "history": "off"])
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url)
        defer { try? store.close() }
        var inserts = try allTypes(store, 40)
        inserts[25].attributes[8] = .date(Date(timeIntervalSinceReferenceDate: .nan))
        let error = #expect(throws: StrataError.self) { try store.save(SaveRequest(inserts: inserts)) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.location["key"] == "date")
        #expect(error?.location["objectID"] == inserts[25].objectID.uriRepresentation)
        #expect(try store.snapshots(of: "AllTypes", among: nil).isEmpty)
        try store.save(SaveRequest(inserts: Array(inserts.prefix(20))))
        #expect(try store.snapshots(of: "AllTypes", among: nil).count == 20)
    }

    @Test func deletesTakeOneStatementPerEntityAndKeepTombstonesWithoutARead() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url)
        defer { try? store.close() }
        let few = try projects(store, titles: (0..<3).map { "few \($0)" })
        let many = try projects(store, titles: (0..<300).map { "many \($0)" })
        try store.save(SaveRequest(inserts: few + many))
        let before = try store.lastHistoryToken()
        let fewCounts = try counting(store) {
            try store.save(SaveRequest(deletes: few.map { SaveRequest.Delete($0.objectID, expectedVersion: 1) }))
        }
        let manyCounts = try counting(store) {
            try store.save(SaveRequest(deletes: many.map { SaveRequest.Delete($0.objectID, expectedVersion: 1) }))
        }
        #expect(fewCounts == manyCounts)
        // BEGIN, DELETE, the history's lock and row, COMMIT, in two round trips.
        #expect(fewCounts.statements == 5)
        #expect(fewCounts.roundTrips == 2)
        #expect(try store.snapshots(of: "Project", among: nil).isEmpty)
        let history = try store.fetchHistory(HistoryRequest(after: before))
        #expect(history.count == 2)
        #expect(
            history.flatMap(\.changes).map { $0.tombstone["title"] }
                == (few + many).map { Optional($0.attributes[0]) })
    }

    @Test func aDeleteAtAnotherVersionIsAConflictAndDeletesNothing() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url)
        defer { try? store.close() }
        let inserted = try projects(store, titles: (0..<20).map { "p\($0)" })
        try store.save(SaveRequest(inserts: inserted))
        var deletes = inserted.map { SaveRequest.Delete($0.objectID, expectedVersion: 1) }
        deletes[7] = SaveRequest.Delete(inserted[7].objectID, expectedVersion: 2)
        let missing = try store.obtainPermanentIDs(for: "Project", count: 1)[0]
        deletes.append(SaveRequest.Delete(missing, expectedVersion: 1))
        let before = try store.lastHistoryToken()
        let error = #expect(throws: StrataError.self) { try store.save(SaveRequest(deletes: deletes)) }
        #expect(error?.code == .conflict)
        #expect(Set(error?.conflicts.map(\.objectID) ?? []) == [inserted[7].objectID, missing])
        #expect(error?.conflicts.first { $0.objectID == inserted[7].objectID }?.storedSnapshot?.version == 1)
        #expect(try store.snapshots(of: "Project", among: nil).count == 20)
        #expect(try store.lastHistoryToken() == before)
    }

    @Test func aLookupOfOneKeyIsOneStatement() throws {
        let url = try PostgresTestServer.freshStoreURL(["history": "off"])
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url)
        defer { try? store.close() }
        let inserted = try allTypes(store, 3)
        try store.save(SaveRequest(inserts: inserted))
        for snapshot in inserted {
            var found: [Snapshot] = []
            let counts = try counting(store) {
                found = try store.fetch(FetchRequest(entityName: "AllTypes", objectIDs: [snapshot.objectID]))
                    .snapshots()
            }
            #expect(counts.statements == 1)
            #expect(counts.roundTrips == 1)
            #expect(found.map(\.attributes) == [snapshot.attributes])
        }
    }
}

extension PostgresSaveShapeTests {
    @Test func updatesWithoutTheirPreviousStateRecordOldValuesWithoutARead() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url)
        defer { try? store.close() }
        let inserted = try allTypes(store, 30)
        try store.save(SaveRequest(inserts: inserted))
        let before = try store.lastHistoryToken()
        var updates: [SaveRequest.Update] = []
        for (index, snapshot) in inserted.enumerated() {
            var changed = snapshot
            changed.attributes[2] = .integer(-7)
            changed.attributes[6] = .string("changed \(index)")
            // A previous state at another version than expected does not count.
            let previous = index % 3 == 0 ? snapshot : nil
            updates.append(.init(changed, expectedVersion: 1, previous: previous))
        }
        let counts = try counting(store) { try store.save(SaveRequest(updates: updates)) }
        // BEGIN, UPDATE, the history's lock and row, COMMIT, in two round trips.
        #expect(counts.statements == 5)
        #expect(counts.roundTrips == 2)
        let changes = try store.fetchHistory(HistoryRequest(after: before)).flatMap(\.changes)
        #expect(changes.count == inserted.count)
        for (change, snapshot) in zip(changes, inserted) {
            #expect(change.properties.map(\.name) == ["i64", "str"])
            #expect(
                change.properties.map(\.oldValue) == [
                    .attribute(snapshot.attributes[2]), .attribute(snapshot.attributes[6]),
                ])
        }
        #expect(try store.snapshots(of: "AllTypes", among: nil).allSatisfy { $0.version == 2 })
    }
}

extension PostgresSaveShapeTests {
    /// `employees` new employees and `projects` new projects, employee `i` a member of projects
    /// `i % projects` and `(i + 1) % projects`; each project lists its members newest first (an
    /// ordered relationship, so the order must come back).
    func staffedProjects(_ store: PostgresStore, employees: Int, projects: Int) throws -> [Snapshot] {
        let employeeIDs = try store.obtainPermanentIDs(for: "Employee", count: employees)
        let projectIDs = try store.obtainPermanentIDs(for: "Project", count: projects)
        var members: [[ObjectID]] = Array(repeating: [], count: projects)
        var staff: [Snapshot] = []
        for (index, id) in employeeIDs.enumerated() {
            let assigned = Set([index % projects, (index + 1) % projects])
            for project in assigned { members[project].insert(id, at: 0) }
            staff.append(
                Snapshot(
                    objectID: id, version: 0, attributes: [.string("e\(index)"), .null, .double(1.7), .integer(1)],
                    relationships: [.toOne(nil), .toMany(assigned.map { projectIDs[$0] }.sorted())]))
        }
        return staff
            + projectIDs.enumerated().map { index, id in
                Snapshot(
                    objectID: id, version: 0, attributes: [.string("p\(index)-\(id.permanentKey)"), .null],
                    relationships: [.toMany(members[index])])
            }
    }

    @Test func manyToManyRowsOfManyNewObjectsGoThroughOneCopyPerJoinTable() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url, options: ["copyRows": "50", "history": "off"])
        defer { try? store.close() }
        let some = try staffedProjects(store, employees: 100, projects: 60)
        let more = try staffedProjects(store, employees: 200, projects: 120)
        let someCounts = try counting(store) { try store.save(SaveRequest(inserts: some)) }
        let moreCounts = try counting(store) { try store.save(SaveRequest(inserts: more)) }
        // The employees, the projects and the join table's rows; their positions in one statement.
        #expect(someCounts.copies == 3)
        #expect(someCounts == moreCounts)
        // BEGIN, three COPYs, the projects' member positions, COMMIT.
        #expect(someCounts.statements == 6)
        let written = Dictionary(uniqueKeysWithValues: (some + more).map { ($0.objectID, $0.relationships) })
        let employees = try store.snapshots(of: "Employee", among: nil)
        let projects = try store.snapshots(of: "Project", among: nil)
        #expect(employees.count == 300 && projects.count == 180)
        for snapshot in employees {
            #expect(Set(snapshot.relationships[1].targets) == Set(written[snapshot.objectID]?[1].targets ?? []))
        }
        for snapshot in projects {
            #expect(snapshot.relationships == written[snapshot.objectID], "members in their order")
        }
    }

    @Test func updatedPositionsOfManyOwnersTakeOneStatement() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url, options: ["history": "off"])
        defer { try? store.close() }
        let inserted = try staffedProjects(store, employees: 40, projects: 10)
        try store.save(SaveRequest(inserts: inserted))
        // Every project's members in the other order.
        let updates = inserted.filter { $0.objectID.entityName == "Project" }.map { snapshot in
            var reordered = snapshot
            reordered.relationships[0] = .toMany(snapshot.relationships[0].targets.reversed())
            return SaveRequest.Update(reordered, expectedVersion: 1)
        }
        let counts = try counting(store) { try store.save(SaveRequest(updates: updates)) }
        // BEGIN, the projects' UPDATE, their members' positions, COMMIT (the join rows belong to
        // the employees' side).
        #expect(counts.statements == 4)
        let projects = try store.snapshots(of: "Project", among: nil)
        let wanted = Dictionary(uniqueKeysWithValues: updates.map { ($0.snapshot.objectID, $0.snapshot.relationships) })
        for snapshot in projects { #expect(snapshot.relationships == wanted[snapshot.objectID]) }
    }
}

extension PostgresSaveShapeTests {
    @Test func stringsThatAreStoredEscapedComeBackTheSameThroughCopyAndInsert() throws {
        let texts = [
            "", "plain", "a\u{0}b", "\u{0}", "\u{FFFE}first", "\u{FFFE}", "mid\u{FFFE}dle", "\u{FFFE}\u{0}\u{FFFE}",
            "\u{FFFD}not the mark", "é\u{0}", String(repeating: "long ", count: 100) + "\u{0}",
        ]
        for copyRows in ["1", "1000"] {
            let url = try PostgresTestServer.freshStoreURL()
            defer { try? PostgresBackend().destroyStore(at: url) }
            let store = try open(url, options: ["copyRows": copyRows, "history": "off"])
            defer { try? store.close() }
            let ids = try store.obtainPermanentIDs(for: "AllTypes", count: texts.count)
            let inserts = zip(ids, texts).map { id, text in
                var attributes = [Value](repeating: .null, count: 12)
                attributes[6] = .string(text)
                return Snapshot(objectID: id, version: 0, attributes: attributes, relationships: [])
            }
            try store.save(SaveRequest(inserts: inserts))
            let stored = try store.snapshots(of: "AllTypes", among: nil).map { $0.attributes[6] }
            #expect(stored == texts.map { Value.string($0) }, "copyRows=\(copyRows)")
        }
    }
}
