import Foundation
import StrataCore
import StrataLMDB
import StrataMigrations
import StrataTestSupport
import Testing

/// An LMDB store records the order of its records' values; a native migration reads the records
/// in that order, even when the model it starts from declares another, and rewrites them in the
/// new model's order.
@Suite struct LMDBRecordOrderMigrationTests {
    static func model(_ attributes: [Attribute], version: String) throws -> Model {
        try Model(versionIdentifier: version, entities: [Entity("Gauge", attributes: attributes)])
    }

    static let label = Attribute("label", .string)
    static let serial = Attribute("serial", .string, isOptional: true)
    static let position = Attribute("position", .integer32)

    @Test func aMigrationReadsTheRecordedOrderAndRecordsTheNewOne() throws {
        let created = try Self.model([Self.label, Self.serial, Self.position], version: "v1")
        let source = try Self.model([Self.position, Self.serial, Self.label], version: "v1")
        let destination = try Self.model(
            [Self.serial, Attribute("unit", .string, isOptional: true), Self.label, Self.position], version: "v2")
        #expect(created.versionHash == source.versionHash)
        let step = try MigrationStep.infer(from: source, to: destination)
        try withTemporaryDirectory { directory in
            let url = storeURL("lmdb", in: directory)
            let backend = LMDBBackend()
            let ids: [ObjectID]
            do {
                let store = try backend.open(url, model: created, options: StoreOptions())
                defer { try? store.close() }
                ids = try store.obtainPermanentIDs(for: "Gauge", count: 2)
                let inserts = ids.enumerated().map { i, id in
                    Snapshot(
                        objectID: id, version: 0,
                        attributes: [.string("g\(i)"), .string("S\(i)"), .integer(Int64(10 * i))], relationships: [])
                }
                try store.save(SaveRequest(inserts: inserts))
            }
            try backend.migrateNatively(
                step, at: url, options: StoreOptions(), metadataChanges: [:], progress: { _ in }, isCancelled: { false }
            )
            for model in [destination, try Self.model(destination.entities[0].attributes.reversed(), version: "v2")] {
                let store = try backend.open(url, model: model, options: StoreOptions())
                defer { try? store.close() }
                let entity = model.entities[0]
                let gauges = try store.snapshots(of: "Gauge", among: ids)
                func values(_ name: String) -> [Value] {
                    gauges.map { $0.attributes[entity.attributeIndex(named: name)!] }
                }
                #expect(values("label") == ["g0", "g1"])
                #expect(values("serial") == ["S0", "S1"])
                #expect(values("position") == [.integer(0), .integer(10)])
                #expect(values("unit") == [.null, .null])
            }
        }
    }
}
