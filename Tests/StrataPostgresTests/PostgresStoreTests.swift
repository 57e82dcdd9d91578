import Foundation
import StrataConformance
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataPostgres

/// What the conformance kit does not cover: the layout a user reads with psql, hostile names and
/// values, two stores (two hosts) on one schema, names longer than PostgreSQL keeps, reopening,
/// and what destroying a store removes.
@Suite(.enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresStoreTests {
    let model = ConformanceFixtures.model

    func open(_ url: StoreURL, model: Model? = nil, options: StoreOptions = StoreOptions()) throws -> PostgresStore {
        try #require(try PostgresBackend().open(url, model: model ?? self.model, options: options) as? PostgresStore)
    }

    /// A connection to the test server, for reading the catalog as psql would.
    func catalog() throws -> PostgresConnection {
        try PostgresConnection(settings: PostgresConnectionSettings(try PostgresTestServer.requireURL()))
    }

    func schemaName(_ url: StoreURL) -> String { url.query["schema"]! }

    /// `table.column -> type` of every column of the schema, as `\d` shows them.
    func columns(of schema: String, on connection: PostgresConnection) throws -> [String: String] {
        let result = try connection.query(
            "SELECT table_name::text, column_name::text, data_type::text FROM information_schema.columns WHERE table_schema = $1",
            [.text(schema)])
        var columns: [String: String] = [:]
        for row in 0..<result.rowCount {
            columns[result.string(row, 0) + "." + result.string(row, 1)] = result.string(row, 2)
        }
        return columns
    }

    func ids(_ store: PostgresStore, _ entity: String, _ count: Int) throws -> [ObjectID] {
        try store.obtainPermanentIDs(for: entity, count: count)
    }

    func snapshot(_ store: PostgresStore, _ id: ObjectID, _ values: [String: Value]) throws -> Snapshot {
        let entity = try store.model.requireEntity(id.entityName)
        return Snapshot(
            objectID: id, version: 0,
            attributes: entity.attributes.map { values[$0.name] ?? .null },
            relationships: entity.relationships.map { $0.isToMany ? .toMany([]) : .toOne(nil) })
    }

    @Test func theLayoutIsWhatPsqlShows() throws {
        let url = try PostgresTestServer.freshStoreURL()
        let store = try open(url)
        defer { try? PostgresBackend().destroyStore(at: url) }
        try store.close()
        let connection = try catalog()
        defer { connection.close() }
        let schema = schemaName(url)
        let columns = try columns(of: schema, on: connection)
        #expect(columns["Employee._pk"] == "bigint")
        #expect(columns["Employee._version"] == "bigint")
        #expect(columns["Employee.name"] == "text")
        #expect(columns["Employee.dateOfBirth"] == "timestamp with time zone")
        #expect(columns["Employee.height"] == "double precision")
        #expect(columns["Employee.level"] == "smallint")
        #expect(columns["Employee.department"] == "bigint")
        #expect(columns["Department.budget"] == "numeric")
        #expect(columns["AllTypes.i32"] == "integer")
        #expect(columns["AllTypes.flt"] == "real")
        #expect(columns["AllTypes.flag"] == "boolean")
        #expect(columns["AllTypes.bin"] == "bytea")
        #expect(columns["AllTypes.uuid"] == "uuid")
        #expect(columns["AllTypes.uri"] == "text")
        // The many-to-many ordered on Project's side: one join table, named after the side that
        // sorts first (Employee.projects), with Project's positions as target_position.
        #expect(columns["Employee.projects.source"] == "bigint")
        #expect(columns["Employee.projects.target"] == "bigint")
        #expect(columns["Employee.projects.target_position"] == "bigint")
        #expect(columns["Employee.projects.source_position"] == nil)
        #expect(columns["Project.members.source"] == nil)
        for table in ["_strata_metadata", "_strata_sequence", "_strata_history"] {
            #expect(columns.keys.contains { $0.hasPrefix(table + ".") }, "\(table)")
        }

        let constraints = try connection.query(
            "SELECT con.conname::text, con.contype::text, con.condeferrable, con.condeferred FROM pg_constraint con JOIN pg_namespace n ON con.connamespace = n.oid WHERE n.nspname = $1",
            [.text(schema)])
        var found: [String: (type: String, deferrable: Bool, deferred: Bool)] = [:]
        for row in 0..<constraints.rowCount {
            found[constraints.string(row, 0)] = (
                constraints.string(row, 1), constraints.bool(row, 2), constraints.bool(row, 3)
            )
        }
        let foreignKey = try #require(found["Employee.fk.department"])
        #expect(foreignKey.type == "f" && foreignKey.deferrable && foreignKey.deferred)
        let unique = try #require(found["Project.unique.title"])
        #expect(unique.type == "u" && unique.deferrable && unique.deferred)

        let indexes = try connection.query(
            "SELECT indexname::text, indexdef FROM pg_indexes WHERE schemaname = $1", [.text(schema)])
        var definitions: [String: String] = [:]
        for row in 0..<indexes.rowCount { definitions[indexes.string(row, 0)] = indexes.string(row, 1) }
        #expect(definitions["Employee.fk.department"]?.hasSuffix("(department)") == true)
        #expect(definitions["Employee.index.byName"]?.hasSuffix("(name)") == true)
        #expect(definitions["Employee.projects.target"]?.hasSuffix("(target, source)") == true)
    }

    @Test func hostileNamesAndValuesStayData() throws {
        let hostile = Entity(
            "Select",
            attributes: [
                Attribute("from", .string, isOptional: true), Attribute("Where", .string, isOptional: true),
                Attribute("where", .integer64, isOptional: true),
            ],
            relationships: [Relationship("order", to: "Order", inverse: "select")],
            uniqueConstraints: [["from"]])
        let order = Entity(
            "Order", attributes: [Attribute("group", .string, isOptional: true)],
            relationships: [Relationship("select", to: "Select", inverse: "order", toMany: true, ordered: true)])
        let model = try Model(versionIdentifier: "hostile", entities: [hostile, order])
        let url = try PostgresTestServer.freshStoreURL([
            "schema": "t_\(UUID().uuidString.prefix(8)) \"; DROP SCHEMA public; --"
        ])
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url, model: model)
        let values = ["'; DROP TABLE \"Select\"; --", "\u{0}nul\u{0}", "\u{FFFE}0 looks escaped", "$1 ?"]
        let selects = try ids(store, "Select", values.count)
        let orderID = try ids(store, "Order", 1)[0]
        var inserts = try zip(selects, values).map { id, value in
            var snapshot = try snapshot(store, id, ["from": .string(value), "Where": .string(value), "where": 1])
            snapshot.relationships[0] = .toOne(orderID)
            return snapshot
        }
        var orderSnapshot = try snapshot(store, orderID, ["group": .string(values[0])])
        orderSnapshot.relationships[0] = .toMany(selects.reversed())
        inserts.append(orderSnapshot)
        try store.save(SaveRequest(inserts: inserts))
        let fetched = try store.snapshots(of: "Select", among: nil)
        #expect(fetched.map { $0.attributes[0] } == values.map { .string($0) })
        #expect(fetched.map { $0.attributes[1] } == values.map { .string($0) })
        #expect(try store.snapshots(of: "Order", among: nil).first?.relationships[0] == .toMany(selects.reversed()))
        try store.close()
        let connection = try catalog()
        defer { connection.close() }
        #expect(try connection.query("SELECT to_regnamespace('public') IS NOT NULL").bool(0, 0))
        #expect(try columns(of: schemaName(url), on: connection)["Select.Where"] == "text")
    }

    @Test func twoStoresOnOneSchemaActLikeTwoHosts() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let first = try open(url)
        let second = try open(url)
        #expect(first.identifier == second.identifier)
        let firstKeys = try ids(first, "Company", 3).map(\.permanentKey)
        let secondKeys = try ids(second, "Company", 3).map(\.permanentKey)
        #expect(Set(firstKeys).isDisjoint(with: secondKeys))
        let id = try ids(first, "Company", 1)[0]
        let firstToken = try first.save(SaveRequest(inserts: [try snapshot(first, id, ["name": "Acme"])])).historyToken
        let stored = try #require(try second.snapshots(of: "Company", among: [id]).first)
        #expect(stored.attributes[0] == "Acme")
        var renamed = stored
        renamed.attributes[0] = "Acme 2"
        let secondToken = try second.save(SaveRequest(updates: [.init(renamed, expectedVersion: 1)])).historyToken
        #expect(secondToken?.sequence == (firstToken?.sequence ?? 0) + 1)
        #expect(try first.lastHistoryToken() == secondToken)
        // The first store still believes version 1: its save conflicts and names the stored state.
        var stale = stored
        stale.attributes[0] = "Acme 3"
        let error = #expect(throws: StrataError.self) {
            try first.save(SaveRequest(updates: [.init(stale, expectedVersion: 1)]))
        }
        #expect(error?.code == .conflict)
        #expect(error?.conflicts.first?.storedSnapshot?.attributes[0] == "Acme 2")
        #expect(error?.conflicts.first?.storedSnapshot?.version == 2)
        try first.close()
        try second.close()
    }

    @Test func namesLongerThanPostgresKeepsAreShortenedTheSameWayEveryTime() throws {
        let long = "Entity" + String(repeating: "Long", count: 20)
        let relationship = "relationship" + String(repeating: "Name", count: 15)
        let model = try Model(
            versionIdentifier: "long",
            entities: [
                Entity(
                    long, attributes: [Attribute("value" + String(repeating: "X", count: 70), .string)],
                    relationships: [Relationship(relationship, to: "Tag", inverse: "owners", toMany: true)],
                    uniqueConstraints: [["value" + String(repeating: "X", count: 70)]]),
                Entity("Tag", relationships: [Relationship("owners", to: long, inverse: relationship, toMany: true)]),
            ])
        #expect(Array(long.utf8).count > 63)
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        var store = try open(url, model: model)
        let owner = try ids(store, long, 1)[0]
        let tag = try ids(store, "Tag", 1)[0]
        var ownerSnapshot = try snapshot(store, owner, ["value" + String(repeating: "X", count: 70): "v"])
        ownerSnapshot.relationships[0] = .toMany([tag])
        var tagSnapshot = try snapshot(store, tag, [:])
        tagSnapshot.relationships[0] = .toMany([owner])
        try store.save(SaveRequest(inserts: [ownerSnapshot, tagSnapshot]))
        try store.close()
        store = try open(url, model: model)
        #expect(try store.snapshots(of: "Tag", among: nil).first?.relationships[0] == .toMany([owner]))
        #expect(try store.snapshots(of: long, among: nil).first?.attributes[0] == "v")
        try store.close()
        let connection = try catalog()
        defer { connection.close() }
        let tables = try connection.query(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = $1", [.text(schemaName(url))])
        let names = (0..<tables.rowCount).map { tables.string($0, 0) }
        #expect(names.contains(PostgresNaming.identifier(long)))
        #expect(names.allSatisfy { $0.utf8.count <= 63 })
        #expect(PostgresNaming.identifier(long) != PostgresNaming.identifier(long + "2"))
    }

    @Test func reopeningFindsTheStoreAndAnotherModelIsAMismatch() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url)
        let identifier = store.identifier
        try store.save(SaveRequest(metadataChanges: ["owner": "lxz"]))
        try store.close()
        let reopened = try open(url)
        #expect(reopened.identifier == identifier)
        #expect(try reopened.metadata().userInfo == ["owner": "lxz"])
        try reopened.close()
        let other = try Model(versionIdentifier: "other", entities: ConformanceFixtures.companyEntities)
        let error = #expect(throws: StrataError.self) { _ = try open(url, model: other) }
        #expect(error?.code == .modelMismatch)
        #expect(try PostgresBackend().metadata(at: url)?.storeIdentifier == identifier)
    }

    @Test func historyRecordsAreStoredUncompressedAndAnOlderStoreIsUpgradedOnOpen() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        try open(url).close()
        let connection = try catalog()
        defer { connection.close() }
        let history = "\(pq(schemaName(url))).\(pq("_strata_history"))"
        func storage() throws -> String {
            try connection.query(
                "SELECT attstorage::text FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'record'",
                [.text(history)]
            ).string(0, 0)
        }
        #expect(try storage() == "e")
        // A store made before the record's storage was set: PostgreSQL's default for bytea.
        try connection.execute("ALTER TABLE \(history) ALTER COLUMN \(pq("record")) SET STORAGE EXTENDED")
        var readOnly = StoreOptions()
        readOnly.isReadOnly = true
        try open(url, options: readOnly).close()
        #expect(try storage() == "x")
        let store = try open(url)
        #expect(try storage() == "e")
        // A record larger than a page is written and read back whole.
        let ids = try ids(store, "Employee", 3_000)
        try store.save(
            SaveRequest(
                inserts: try ids.map {
                    try snapshot(store, $0, ["name": .string("e"), "height": .double(1.7), "level": .integer(1)])
                }))
        let recorded = try store.fetchHistory(HistoryRequest())
        #expect(recorded.count == 1 && recorded.first?.changes.count == 3_000)
        try store.close()
    }

    @Test func destroyingAStoreDropsOnlyWhatItMade() throws {
        let url = try PostgresTestServer.freshStoreURL()
        let store = try open(url)
        try store.close()
        let connection = try catalog()
        defer { connection.close() }
        let schema = schemaName(url)
        try connection.execute("CREATE TABLE \(pq(schema)).\(pq("mine")) (x int)")
        try PostgresBackend().destroyStore(at: url)
        #expect(try PostgresBackend().metadata(at: url) == nil)
        var tables = try connection.query(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = $1", [.text(schema)])
        #expect((0..<tables.rowCount).map { tables.string($0, 0) } == ["mine"])
        try connection.execute("DROP TABLE \(pq(schema)).\(pq("mine"))")
        // A store in a schema that then holds nothing else takes the schema with it.
        _ = try open(url)
        try PostgresBackend().destroyStore(at: url)
        tables = try connection.query("SELECT count(*) FROM pg_namespace WHERE nspname = $1", [.text(schema)])
        #expect(tables.int64(0, 0) == 0)
    }

    @Test func aSchemaWithOtherTablesIsNotTakenOver() throws {
        let url = try PostgresTestServer.freshStoreURL()
        let schema = schemaName(url)
        let connection = try catalog()
        defer { connection.close() }
        try connection.execute("CREATE SCHEMA \(pq(schema)); CREATE TABLE \(pq(schema)).\(pq("theirs")) (x int)")
        defer { try? connection.execute("DROP SCHEMA \(pq(schema)) CASCADE") }
        let error = #expect(throws: StrataError.self) { _ = try open(url) }
        #expect(error?.code == .storeCorrupt)
        #expect(try PostgresBackend().metadata(at: url) == nil)
    }

    @Test func anEntityBeyondPostgresColumnLimitIsRefusedBeforeAnythingIsCreated() throws {
        let attributes = (0..<1_700).map { Attribute("a\($0)", .integer64, isOptional: true) }
        let wide = try Model(versionIdentifier: "wide", entities: [Entity("Wide", attributes: attributes)])
        let url = try PostgresTestServer.freshStoreURL()
        let error = #expect(throws: StrataError.self) { _ = try open(url, model: wide) }
        #expect(error?.code == .invalidModel)
        #expect(error?.location["entity"] == "Wide")
        #expect(error?.location["count"] == "1702")
        let connection = try catalog()
        defer { connection.close() }
        let schemas = try connection.query(
            "SELECT count(*) FROM pg_namespace WHERE nspname = $1", [.text(schemaName(url))])
        #expect(schemas.int64(0, 0) == 0)
    }

    @Test func aDateNoTimestampHoldsIsATypedErrorNamingTheAttribute() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url)
        defer { try? store.close() }
        let rows = try ids(store, "AllTypes", 2)
        for count in [1, 2] {
            let inserts = try rows.prefix(count).map {
                try snapshot(store, $0, ["date": .date(Date(timeIntervalSinceReferenceDate: .nan))])
            }
            let error = #expect(throws: StrataError.self) { try store.save(SaveRequest(inserts: inserts)) }
            #expect(error?.code == .invalidRequest)
            #expect(error?.location["entity"] == "AllTypes")
            #expect(error?.location["key"] == "date")
            #expect(error?.message.contains("AllTypes") == true)
        }
        #expect(try store.snapshots(of: "AllTypes", among: nil).isEmpty)
        // The microsecond is what a timestamp keeps; infinities are PostgreSQL's own.
        let kept = [
            Date(timeIntervalSinceReferenceDate: 1.000_000_4), Date(timeIntervalSinceReferenceDate: .infinity),
            Date(timeIntervalSinceReferenceDate: -.infinity),
        ]
        let more = try ids(store, "AllTypes", kept.count)
        try store.save(SaveRequest(inserts: try zip(more, kept).map { try snapshot(store, $0, ["date": .date($1)]) }))
        let dates = try store.snapshots(of: "AllTypes", among: nil).map { $0.attributes[8] }
        #expect(
            dates == [
                .date(Date(timeIntervalSinceReferenceDate: 1)), .date(kept[1]), .date(kept[2]),
            ])
    }

    @Test func twoSchemasOfOneDatabaseAreTwoStores() throws {
        let backend = PostgresBackend()
        let a = try StoreURL.parse("postgres://app@db.example.com:5432/app?schema=a")
        let b = try StoreURL.parse("postgres://app@db.example.com:5432/app?schema=b")
        let aliasA = try StoreURL.parse("postgresql://other@db.example.com:5432/app?schema=a&pool=3")
        let publicSchema = try StoreURL.parse("postgres://app@db.example.com:5432/app")
        let explicitPublic = try StoreURL.parse("postgres://app@db.example.com:5432/app?schema=public")
        let otherDatabase = try StoreURL.parse("postgres://app@db.example.com:5432/other?schema=a")
        #expect(try backend.overlaps(a, with: aliasA, of: PostgresBackend(scheme: PostgresBackend.aliasSchemeName)))
        #expect(try backend.overlaps(publicSchema, with: explicitPublic, of: backend))
        #expect(try !backend.overlaps(a, with: b, of: backend))
        #expect(try !backend.overlaps(a, with: otherDatabase, of: backend))
        #expect(try !backend.overlaps(a, with: StoreURL.parse("sqlite:/tmp/a.sqlite"), of: SQLiteBackendStandIn()))
    }

    @Test func uniqueValuesSwapWithinOneSave() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url)
        defer { try? store.close() }
        let projects = try ids(store, "Project", 2)
        try store.save(
            SaveRequest(inserts: [
                try snapshot(store, projects[0], ["title": "Apollo"]),
                try snapshot(store, projects[1], ["title": "Gemini"]),
            ]))
        try store.save(
            SaveRequest(updates: [
                .init(try snapshot(store, projects[0], ["title": "Gemini"]), expectedVersion: 1),
                .init(try snapshot(store, projects[1], ["title": "Apollo"]), expectedVersion: 1),
            ]))
        #expect(try store.snapshots(of: "Project", among: nil).map { $0.attributes[0] } == ["Gemini", "Apollo"])
        let third = try ids(store, "Project", 1)[0]
        let error = #expect(throws: StrataError.self) {
            try store.save(SaveRequest(inserts: [try snapshot(store, third, ["title": "Apollo"])]))
        }
        #expect(error?.code == .uniqueConstraint)
        #expect(error?.location["entity"] == "Project")
        #expect(error?.message.contains("Apollo") == true)
    }
}

/// A backend of another kind, with files, for comparing URLs across backends.
private struct SQLiteBackendStandIn: StoreBackend {
    var scheme: String { "sqlite" }
    var capabilities: BackendCapabilities { [.persistent] }
    func open(_ url: StoreURL, model: Model, options: StoreOptions) throws -> any PersistentStore {
        throw StrataError(.invalidRequest, "not opened in this test")
    }
    func metadata(at url: StoreURL) throws -> StoreMetadata? { nil }
    func destroyStore(at url: StoreURL) throws {}
    func files(of url: StoreURL) throws -> [String] { [url.location] }
}
