import Foundation
import Strata
import StrataData
import StrataTestSupport
import Testing

/// A schema declared in Swift and the same model written as a JSON model file have one version
/// hash, so that a store made by either opens with the other, in a program and in the `strata`
/// tool.
@Suite struct SchemaJSONTests {
    /// The trip-planning models and the attribute sampler, written by hand as a JSON model file:
    /// entities and properties in another order than the Swift declarations, each Swift type as
    /// the attribute type docs/StrataData.md says it is stored as.
    static let handWritten = """
        {
          "format": "strata-model", "formatVersion": 1, "version": "trips",
          "entities": [
            { "name": "Sampler",
              "attributes": [
                { "name": "url", "type": "uri" }, { "name": "uuid", "type": "uuid" },
                { "name": "tags", "type": "binary" }, { "name": "status", "type": "string", "optional": true },
                { "name": "optionalInt", "type": "integer64", "optional": true },
                { "name": "optionalString", "type": "string", "optional": true },
                { "name": "data", "type": "binary" }, { "name": "date", "type": "date" },
                { "name": "bool", "type": "boolean" }, { "name": "decimal", "type": "decimal" },
                { "name": "float", "type": "float" }, { "name": "double", "type": "double" },
                { "name": "uint64", "type": "integer64" }, { "name": "uint32", "type": "integer64" },
                { "name": "uint16", "type": "integer32" }, { "name": "uint8", "type": "integer16" },
                { "name": "int64", "type": "integer64" }, { "name": "int32", "type": "integer32" },
                { "name": "int16", "type": "integer16" }, { "name": "int8", "type": "integer16" },
                { "name": "int", "type": "integer64" } ] },
            { "name": "LivingAccommodation",
              "attributes": [ { "name": "placeName", "type": "string" }, { "name": "address", "type": "string" } ],
              "relationships": [
                { "name": "trip", "destination": "Trip", "inverse": "livingAccommodation" } ] },
            { "name": "Trip",
              "attributes": [
                { "name": "status", "type": "string", "default": "planned" },
                { "name": "budget", "type": "binary", "optional": true },
                { "name": "endDate", "type": "date" }, { "name": "startDate", "type": "date" },
                { "name": "destination", "type": "string" }, { "name": "name", "type": "string" } ],
              "relationships": [
                { "name": "livingAccommodation", "destination": "LivingAccommodation", "inverse": "trip",
                  "deleteRule": "cascade" },
                { "name": "bucketList", "destination": "BucketListItem", "inverse": "trip", "toMany": true,
                  "deleteRule": "cascade" } ],
              "uniqueConstraints": [["name"]] },
            { "name": "BucketListItem",
              "attributes": [
                { "name": "isInPlan", "type": "boolean" }, { "name": "hasReservation", "type": "boolean" },
                { "name": "details", "type": "string" }, { "name": "title", "type": "string" } ],
              "relationships": [ { "name": "trip", "destination": "Trip", "inverse": "bucketList" } ] }
          ]
        }
        """

    static let schema = Schema([Trip.self, Sampler.self])

    @Test func modelJSONReadsBackAsTheSameModel() throws {
        let data = try Self.schema.modelJSON()
        let model = try Model(jsonData: data)
        #expect(model.versionHash == Self.schema.model.versionHash)
        #expect(model.entities == Self.schema.model.entities)
        #expect(model.versionIdentifier == "1.0.0")
        #expect(try Schema([Trip.self, Sampler.self]).modelJSON() == data, "the same schema gives the same bytes")
    }

    @Test func aHandWrittenFileHasTheSwiftSchemasHash() throws {
        let file = try Model(jsonData: Data(Self.handWritten.utf8))
        #expect(Set(file.entities.map(\.name)) == Set(Self.schema.model.entities.map(\.name)))
        #expect(file.versionHash == Self.schema.model.versionHash)
    }

    @Test func aSchemaAModelContainerRefusesHasNoJSON() throws {
        let error = try #require(throws: StrataError.self) { try Schema([Lodger.self]).modelJSON() }
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("'Lodger.host' has no inverse"), "\(error.message)")
    }

    /// The store location of a configuration of `backend` (not `memory`), as the tool takes it.
    static func toolURL(_ backend: ModelBackend, _ configuration: ModelConfiguration) -> String {
        switch backend {
        case .lmdb: return configuration.url.absoluteString
        default: return "\(backend.rawValue):\(configuration.url.path)"
        }
    }

    static func saveTrips(in configuration: ModelConfiguration) throws {
        let container = try ModelContainer(for: schema, configurations: configuration)
        let context = ModelContext(container)
        let trip = Trip(
            name: "Lofoten", destination: "Norway", startDate: Date(timeIntervalSince1970: 1_000),
            endDate: Date(timeIntervalSince1970: 9_000))
        trip.status = .booked
        trip.budget = Budget(amount: 1_200, currency: "EUR")
        trip.bucketList = [BucketListItem(title: "Reine", details: "the village"), BucketListItem(title: "Kvalvika")]
        trip.livingAccommodation = LivingAccommodation(address: "Hamnøy 1", placeName: "Rorbu")
        context.insert(trip)
        context.insert(Trip(name: "Senja", destination: "Norway"))
        context.insert(Sampler())
        try context.save()
    }

    @Test(arguments: [ModelBackend.sqlite, .lmdb, .xml])
    func theToolReadsAStoreMadeFromTheSwiftSchema(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("trips.json")
            try Self.schema.modelJSON().write(to: file)
            let configuration = backend.configuration(in: directory)
            try Self.saveTrips(in: configuration)
            let url = Self.toolURL(backend, configuration)

            let inspect = try runBuilt("strata", ["inspect", url, "--model", file.path])
            #expect(inspect.status == 0, "\(inspect.errors)")
            #expect(inspect.output.contains("model:        trips 1.0.0 (the current version)"), "\(inspect.output)")
            #expect(inspect.output.contains("objects:      6"), "\(inspect.output)")
            let export = try runBuilt("strata", ["export", url, "--model", file.path])
            #expect(export.status == 0, "\(export.errors)")
            let lines = export.output.split(separator: "\n")
            #expect(lines.count == 6)
            #expect(lines.contains { $0.contains(#""name":"Lofoten""#) && $0.contains(#""status":"booked""#) })
            #expect(lines.contains { $0.contains(#""placeName":"Rorbu""#) })
            let validate = try runBuilt("strata", ["validate", url, "--model", file.path])
            #expect(validate.status == 0, "\(validate.output) \(validate.errors)")

            // The export, imported by the tool into a new store made from the file, opens with
            // the Swift schema.
            let exported = directory.appendingPathComponent("trips.jsonl")
            try Data(export.output.utf8).write(to: exported)
            let copy = backend.configuration(in: directory, name: "imported")
            let imported = try runBuilt(
                "strata", ["import", Self.toolURL(backend, copy), exported.path, "--model", file.path])
            #expect(imported.status == 0, "\(imported.errors)")
            let context = ModelContext(try ModelContainer(for: Self.schema, configurations: copy))
            let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
            #expect(trips.map(\.name) == ["Lofoten", "Senja"])
            #expect(trips.first?.status == .booked)
            #expect(trips.first?.budget == Budget(amount: 1_200, currency: "EUR"))
            #expect(Set(trips.first?.bucketList.map(\.title) ?? []) == ["Reine", "Kvalvika"])
            #expect(trips.first?.livingAccommodation?.placeName == "Rorbu")
            let sampler = try #require(try context.fetch(FetchDescriptor<Sampler>()).first)
            #expect(sampler.int8 == -8 && sampler.uint64 == 64 && sampler.float == 2.5 && sampler.tags == ["a", "b"])
        }
    }

    /// The hand-written file lists every property in another order than the Swift declarations;
    /// each backend reads the values by name either way.
    @Test(arguments: [ModelBackend.sqlite, .lmdb, .xml])
    func aStoreMadeFromTheSwiftSchemaOpensWithTheHandWrittenFile(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let configuration = backend.configuration(in: directory)
            try Self.saveTrips(in: configuration)
            let model = try Model(jsonData: Data(Self.handWritten.utf8))
            let store = try BuiltInBackends.registry.open(Self.toolURL(backend, configuration), model: model)
            defer { try? store.close() }
            let trip = try #require(model.entity(named: "Trip"))
            let trips = try store.snapshots(of: "Trip", among: nil)
            let lofoten = try #require(trips.first { $0.attributes[trip.attributeIndex(named: "name")!] == "Lofoten" })
            #expect(lofoten.attributes[trip.attributeIndex(named: "destination")!] == "Norway")
            #expect(lofoten.attributes[trip.attributeIndex(named: "status")!] == "booked")
            #expect(
                lofoten.attributes[trip.attributeIndex(named: "startDate")!]
                    == .date(Date(timeIntervalSince1970: 1_000)))
            guard case .toMany(let items) = lofoten.relationships[trip.relationshipIndex(named: "bucketList")!] else {
                Issue.record("bucketList is not a to-many")
                return
            }
            #expect(items.count == 2)
            let sampler = try #require(model.entity(named: "Sampler"))
            let values = try #require(try store.snapshots(of: "Sampler", among: nil).first).attributes
            #expect(values[sampler.attributeIndex(named: "int8")!] == .integer(-8))
            #expect(values[sampler.attributeIndex(named: "uint16")!] == .integer(16))
            #expect(values[sampler.attributeIndex(named: "url")!] == .uri(URL(string: "https://example.com/a")!))
        }
    }

    /// A store made from the hand-written file (its properties in another order) opens with the
    /// Swift schema.
    @Test(arguments: [ModelBackend.sqlite, .lmdb, .xml])
    func aStoreMadeFromTheHandWrittenFileOpensWithTheSwiftSchema(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let configuration = backend.configuration(in: directory)
            let model = try Model(jsonData: Data(Self.handWritten.utf8))
            do {
                let store = try BuiltInBackends.registry.open(Self.toolURL(backend, configuration), model: model)
                defer { try? store.close() }
                let entity = try #require(model.entity(named: "Trip"))
                var trip = Snapshot(objectID: try store.obtainPermanentIDs(for: "Trip", count: 1)[0], entity: entity)
                let values: [String: Value] = [
                    "name": "Lofoten", "destination": "Norway", "status": "booked",
                    "startDate": .date(Date(timeIntervalSince1970: 1_000)),
                    "endDate": .date(Date(timeIntervalSince1970: 9_000)),
                ]
                for (name, value) in values { trip.attributes[entity.attributeIndex(named: name)!] = value }
                try store.save(SaveRequest(inserts: [trip]))
            }
            let context = ModelContext(try ModelContainer(for: Self.schema, configurations: configuration))
            let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
            #expect(trip.name == "Lofoten")
            #expect(trip.destination == "Norway")
            #expect(trip.status == .booked)
            #expect(trip.startDate == Date(timeIntervalSince1970: 1_000))
            #expect(trip.endDate == Date(timeIntervalSince1970: 9_000))
            #expect(trip.budget == nil)
        }
    }
}

/// A model whose relationship has no inverse: its host does not point back.
@Model final class Lodger {
    var name: String
    var host: Landlord?

    init(name: String) { self.name = name }
}

/// The destination of ``Lodger/host``.
@Model final class Landlord {
    var name: String

    init(name: String) { self.name = name }
}
