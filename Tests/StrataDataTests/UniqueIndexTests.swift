import Foundation
import Strata
import StrataData
import StrataTestSupport
import Testing

@testable import StrataSQLite

/// `#Unique` and `#Index` become the entity's unique constraints and indexes: inserts that
/// collide on one constraint update the stored model (SwiftData's upsert) on every backend,
/// SQLite builds the indexes, the JSON model file has the same version hash, and adding an
/// index is a lightweight migration.
@Suite struct UniqueIndexTests {
    static let monday = Date(timeIntervalSince1970: 1_000_000)
    static let tuesday = Date(timeIntervalSince1970: 1_086_400)

    static func context(_ backend: ModelBackend, in directory: URL) throws -> ModelContext {
        ModelContext(try ModelContainer(for: Flight.self, configurations: backend.configuration(in: directory)))
    }

    @Test func theMacrosBecomeTheEntitysConstraintsAndIndexes() throws {
        let entity = try #require(Schema([Flight.self]).model.entity(named: "Flight"))
        #expect(entity.uniqueConstraints == [["carrier", "number", "day"], ["code"]])
        #expect(
            entity.indexes == [
                .init(name: "departure", properties: ["departure"]),
                .init(name: "carrier_day", properties: ["carrier", "day"]),
            ])
        let landmark = try #require(Schema([Landmark.self]).model.entity(named: "Landmark"))
        #expect(landmark.indexes.map(\.properties) == [["name"], ["latitude", "longitude"]])
    }

    @Test(arguments: ModelBackend.allCases)
    func anInsertCollidingOnACompoundConstraintUpdatesTheStoredModel(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let context = try Self.context(backend, in: directory)
            let stored = Flight(carrier: "SK", number: 4_401, day: Self.monday, departure: "OSL")
            context.insert(stored)
            context.insert(Flight(carrier: "SK", number: 4_401, day: Self.tuesday, departure: "OSL"))
            try context.save()

            let again = Flight(carrier: "SK", number: 4_401, day: Self.monday, departure: "TRD")
            context.insert(again)
            try context.save()
            #expect(again.persistentModelID == stored.persistentModelID)
            let reopened = try Self.context(backend, in: directory)
            let flights = try reopened.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.day)]))
            #expect(flights.map(\.departure) == ["TRD", "OSL"])
            #expect(flights.map(\.day) == [Self.monday, Self.tuesday])
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func eachConstraintOfAUniqueMacroUpsertsAndNilMatchesNothing(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let context = try Self.context(backend, in: directory)
            context.insert(Flight(carrier: "SK", number: 1, day: Self.monday, code: "ABC123", departure: "OSL"))
            context.insert(Flight(carrier: "DY", number: 2, day: Self.monday, departure: "BGO"))
            try context.save()

            // Another flight by the compound key, but the same code: the code's owner is updated.
            context.insert(Flight(carrier: "WF", number: 3, day: Self.tuesday, code: "ABC123", departure: "TOS"))
            // No code, another compound key: a new flight (nil codes never collide).
            context.insert(Flight(carrier: "DY", number: 4, day: Self.monday, departure: "SVG"))
            try context.save()

            let flights = try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.number)]))
            #expect(flights.map(\.number) == [2, 3, 4])
            #expect(flights.map(\.carrier) == ["DY", "WF", "DY"])
            #expect(flights.first { $0.code == "ABC123" }?.departure == "TOS")
        }
    }

    @Test func sqliteBuildsTheIndexesAndFetchesUseThem() throws {
        try withTemporaryDirectory { directory in
            let context = try Self.context(.sqlite, in: directory)
            context.insert(Flight(carrier: "SK", number: 1, day: Self.monday, departure: "OSL"))
            try context.save()
            let store = try #require(
                try context.container.coordinator.store(for: "Flight").capability(SQLiteStore.self))
            let byDeparture = try Self.plan(
                FetchRequest(entityName: "Flight", predicate: .key("departure") == "OSL"), in: store)
            #expect(byDeparture.contains { $0.contains("USING INDEX") && $0.contains("departure=?") }, "\(byDeparture)")
            let byCarrier = try Self.plan(
                FetchRequest(entityName: "Flight", predicate: .key("carrier") == "SK"), in: store)
            #expect(byCarrier.contains { $0.contains("USING INDEX") && $0.contains("carrier=?") }, "\(byCarrier)")
            let byArrival = try Self.plan(
                FetchRequest(entityName: "Flight", predicate: .key("arrival") == "BGO"), in: store)
            #expect(byArrival.contains { $0.hasPrefix("SCAN") }, "no index covers arrival: \(byArrival)")
        }
    }

    /// The `detail` lines of SQLite's plan for the SQL the store runs for `request`.
    static func plan(_ request: FetchRequest, in store: SQLiteStore) throws -> [String] {
        var builder = SQLiteQueryBuilder(schema: store.schema, storeIdentifier: store.identifier)
        let query = try builder.build(request, table: try #require(store.schema.tables[request.entityName]))
        return try store.withReader { connection in
            let statement = try connection.prepare("EXPLAIN QUERY PLAN " + query.sql)
            defer { statement.reset() }
            var lines: [String] = []
            while try statement.step() { lines.append(statement.string(3)) }
            return lines
        }
    }

    @Test func theModelJSONHasTheSwiftSchemasHash() throws {
        let schema = Schema([Flight.self])
        let handWritten = """
            { "format": "strata-model", "formatVersion": 1, "version": "1.0.0",
              "entities": [ { "name": "Flight",
                "attributes": [
                  { "name": "carrier", "type": "string" }, { "name": "number", "type": "integer64" },
                  { "name": "day", "type": "date" }, { "name": "code", "type": "string", "optional": true },
                  { "name": "departure", "type": "string" }, { "name": "arrival", "type": "string" } ],
                "uniqueConstraints": [["code"], ["day", "number", "carrier"]],
                "indexes": [
                  { "name": "carrier_day", "properties": ["carrier", "day"] },
                  { "name": "departure", "properties": ["departure"] } ] } ] }
            """
        let file = try Model(jsonData: Data(handWritten.utf8))
        #expect(file.versionHash == schema.model.versionHash)
        let generated = try Model(jsonData: try schema.modelJSON())
        #expect(generated.versionHash == schema.model.versionHash)
        #expect(generated.entities == schema.model.entities)

        let renamedIndex = try Model(
            jsonData: Data(
                handWritten.replacingOccurrences(of: #""departure", "properties""#, with: #""dep", "properties""#).utf8)
        )
        #expect(renamedIndex.versionHash != schema.model.versionHash, "an index's name is part of the hash")
    }

    @Test func aConstraintOverARelationshipFailsTheContainerNamingIt() throws {
        let error = try #require(throws: StrataError.self) {
            try ModelContainer(for: Seat.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("#Unique of 'Seat' names 'cabin', a relationship"), "\(error.message)")
    }

    @Test func addingAnIndexChangesTheVersionHash() {
        let v1 = Schema(versionedSchema: RoutesSchemaV1.self).model
        let v2 = Schema(versionedSchema: RoutesSchemaV2.self).model
        #expect(v1.versionHash != v2.versionHash)
        #expect(v2.entity(named: "Route")?.indexes.map(\.properties) == [["origin", "destination"]])
    }

    @Test(arguments: ModelBackend.allCases)
    func addingAnIndexMigratesLightweight(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let configuration = backend.configuration(in: directory)
            do {
                let context = ModelContext(
                    try ModelContainer(
                        for: Schema(versionedSchema: RoutesSchemaV1.self), configurations: configuration))
                context.insert(RoutesSchemaV1.Route(origin: "OSL", destination: "TOS"))
                context.insert(RoutesSchemaV1.Route(origin: "BGO", destination: "OSL"))
                try context.save()
            }
            let container = try ModelContainer(
                for: RoutesSchemaV2.Route.self, migrationPlan: RoutesIndexPlan.self, configurations: configuration)
            #expect(container.schema.version == Schema.Version(2, 0, 0))
            let context = ModelContext(container)
            let routes = try context.fetch(
                FetchDescriptor<RoutesSchemaV2.Route>(
                    predicate: #Predicate { $0.origin == "OSL" }, sortBy: [SortDescriptor(\.destination)]))
            #expect(routes.map(\.destination) == ["TOS"])
            #expect(try context.fetchCount(FetchDescriptor<RoutesSchemaV2.Route>()) == 2)
            if backend == .sqlite {
                let store = try #require(try container.coordinator.store(for: "Route").capability(SQLiteStore.self))
                let plan = try Self.plan(
                    FetchRequest(entityName: "Route", predicate: .key("origin") == "OSL"), in: store)
                #expect(plan.contains { $0.contains("USING INDEX") && $0.contains("origin=?") }, "\(plan)")
            }
        }
    }
}
