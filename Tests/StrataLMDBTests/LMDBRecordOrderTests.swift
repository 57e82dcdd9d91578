import CStrataLMDB
import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataLMDB

/// A record lists its values by position, but the version hash leaves the order of declarations
/// out: a store made with one model opens with a model that declares the same properties in
/// another order (Swift classes and a JSON file), and reads and writes its records in the order
/// it recorded.
@Suite struct LMDBRecordOrderTests {
    /// Gauges on panels; `reversed` declares every property of both entities in reverse order.
    static func model(reversed: Bool, extra: Attribute? = nil, version: String = "v1") throws -> Model {
        var gauge = [
            Attribute("label", .string), Attribute("serial", .string, isOptional: true),
            Attribute("reading", .double), Attribute("position", .integer32),
        ]
        var gaugeLinks = [
            Relationship("panel", to: "Panel", inverse: "gauges"),
            Relationship("spares", to: "Panel", inverse: "spareFor", toMany: true),
        ]
        var panel = [Relationship("gauges", to: "Gauge", inverse: "panel", toMany: true, ordered: true)]
        panel.append(Relationship("spareFor", to: "Gauge", inverse: "spares", toMany: true))
        if let extra { gauge.append(extra) }
        if reversed {
            gauge.reverse()
            gaugeLinks.reverse()
            panel.reverse()
        }
        return try Model(
            versionIdentifier: version,
            entities: [
                Entity(
                    "Gauge", attributes: gauge, relationships: gaugeLinks, uniqueConstraints: [["serial"]],
                    indexes: [Entity.Index(name: "byReading", properties: ["reading"])]),
                Entity("Panel", attributes: [Attribute("name", .string)], relationships: panel),
            ])
    }

    static func value(_ snapshot: Snapshot, _ name: String, in model: Model) -> Value {
        let entity = model.entity(named: snapshot.objectID.entityName)!
        return snapshot.attributes[entity.attributeIndex(named: name)!]
    }

    static func link(_ snapshot: Snapshot, _ name: String, in model: Model) -> RelationshipValue {
        let entity = model.entity(named: snapshot.objectID.entityName)!
        return snapshot.relationships[entity.relationshipIndex(named: name)!]
    }

    /// Saves a panel and three gauges with `model`; returns the panel's ID and the gauges' IDs.
    static func seed(_ store: any PersistentStore, _ model: Model) throws -> (ObjectID, [ObjectID]) {
        let gauge = model.entity(named: "Gauge")!
        let panelEntity = model.entity(named: "Panel")!
        let panelID = try store.obtainPermanentIDs(for: "Panel", count: 1)[0]
        let ids = try store.obtainPermanentIDs(for: "Gauge", count: 3)
        var gauges: [Snapshot] = []
        for (i, id) in ids.enumerated() {
            var snapshot = Snapshot(objectID: id, entity: gauge)
            let values: [String: Value] = [
                "label": .string("g\(i)"), "serial": .string("S\(i)"), "reading": .double(Double(i) + 0.5),
                "position": .integer(Int64(10 * i)),
            ]
            for (name, value) in values { snapshot.attributes[gauge.attributeIndex(named: name)!] = value }
            snapshot.relationships[gauge.relationshipIndex(named: "panel")!] = .toOne(panelID)
            snapshot.relationships[gauge.relationshipIndex(named: "spares")!] = .toMany([])
            gauges.append(snapshot)
        }
        var panel = Snapshot(objectID: panelID, entity: panelEntity)
        panel.attributes[0] = "main"
        panel.relationships[panelEntity.relationshipIndex(named: "gauges")!] = .toMany(ids.reversed())
        panel.relationships[panelEntity.relationshipIndex(named: "spareFor")!] = .toMany([])
        try store.save(SaveRequest(inserts: gauges + [panel]))
        return (panelID, ids)
    }

    /// Checks what ``seed(_:_:)`` saved, read with `model`.
    static func expectSeeded(_ store: any PersistentStore, _ model: Model, panel: ObjectID, gauges ids: [ObjectID])
        throws
    {
        let gauges = try store.snapshots(of: "Gauge", among: ids)
        #expect(gauges.map { value($0, "label", in: model) } == ["g0", "g1", "g2"])
        #expect(gauges.map { value($0, "reading", in: model) } == [.double(0.5), .double(1.5), .double(2.5)])
        #expect(gauges.map { value($0, "position", in: model) } == [.integer(0), .integer(10), .integer(20)])
        #expect(gauges.map { link($0, "panel", in: model) } == Array(repeating: .toOne(panel), count: 3))
        let stored = try #require(try store.snapshots(of: "Panel", among: [panel]).first)
        #expect(link(stored, "gauges", in: model) == .toMany(ids.reversed()), "the ordered to-many keeps its order")
        let byReading = try store.fetch(
            FetchRequest(entityName: "Gauge", predicate: try ObjectPredicate(format: "reading > 1.0"))
        ).objectIDs()
        #expect(Set(byReading) == Set(ids.dropFirst()))
    }

    @Test func aStoreOpensWithAModelThatDeclaresItsPropertiesInAnotherOrder() throws {
        let declared = try Self.model(reversed: false)
        let reversed = try Self.model(reversed: true)
        #expect(declared.versionHash == reversed.versionHash)
        try withTemporaryDirectory { directory in
            let url = storeURL("lmdb", in: directory)
            let (panel, ids): (ObjectID, [ObjectID])
            do {
                let store = try LMDBBackend().open(url, model: declared, options: StoreOptions())
                defer { try? store.close() }
                (panel, ids) = try Self.seed(store, declared)
            }
            do {
                let store = try LMDBBackend().open(url, model: reversed, options: StoreOptions())
                defer { try? store.close() }
                try Self.expectSeeded(store, reversed, panel: panel, gauges: ids)
                // A save through the other order writes the records in the store's order.
                var first = try #require(try store.snapshots(of: "Gauge", among: [ids[0]]).first)
                let gauge = reversed.entity(named: "Gauge")!
                first.attributes[gauge.attributeIndex(named: "label")!] = "renamed"
                try store.save(SaveRequest(updates: [SaveRequest.Update(first, expectedVersion: first.version)]))
                let duplicate = try store.obtainPermanentIDs(for: "Gauge", count: 1)[0]
                var copy = Snapshot(objectID: duplicate, entity: gauge)
                copy.attributes = first.attributes
                #expect(throws: StrataError.self, "the unique constraint holds in the other order") {
                    try store.save(SaveRequest(inserts: [copy]))
                }
            }
            let store = try LMDBBackend().open(url, model: declared, options: StoreOptions())
            defer { try? store.close() }
            let first = try #require(try store.snapshots(of: "Gauge", among: [ids[0]]).first)
            #expect(Self.value(first, "label", in: declared) == "renamed")
            #expect(Self.value(first, "serial", in: declared) == "S0")
            #expect(Self.value(first, "position", in: declared) == .integer(0))
        }
    }

    /// A store made before stores recorded their order has none: it is read in the order of the
    /// model that opens it, as before.
    @Test func aStoreWithoutARecordedOrderUsesTheModelsOrder() throws {
        let declared = try Self.model(reversed: false)
        try withTemporaryDirectory { directory in
            let url = storeURL("lmdb", in: directory)
            let (panel, ids): (ObjectID, [ObjectID])
            do {
                let store = try LMDBBackend().open(url, model: declared, options: StoreOptions())
                defer { try? store.close() }
                (panel, ids) = try Self.seed(store, declared)
            }
            let environment = try LMDBEnvironment.acquire(path: url.location, options: LMDBOptions())
            let meta = try environment.openDatabases([("_meta", 0)], create: false)["_meta"]!
            let removed = try environment.write { txn in
                try ["Gauge", "Panel"].map { name in
                    try Array(RecordOrder.metadataKey(name).utf8).withUnsafeBytes { try txn.delete(meta, key: $0) }
                }
            }
            environment.release()
            #expect(removed == [true, true])
            let store = try LMDBBackend().open(url, model: declared, options: StoreOptions())
            defer { try? store.close() }
            try Self.expectSeeded(store, declared, panel: panel, gauges: ids)
        }
    }
}
