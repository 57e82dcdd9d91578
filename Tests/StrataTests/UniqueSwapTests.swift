import Foundation
import Strata
import StrataTestSupport
import Testing

/// Unique constraints hold for a save's final state on every backend: objects may swap or rotate
/// their values under a constraint in one save; two objects taking one value still fail, and a
/// failed save writes nothing.
@Suite struct UniqueSwapTests {
    static let model = try! Model(
        entities: [
            Entity(
                "Seat", attributes: [Attribute("label", .string), Attribute("row", .integer64)],
                uniqueConstraints: [["label"]])
        ])

    static func snapshot(_ id: ObjectID, _ label: String, version: Int64 = 0) -> Snapshot {
        Snapshot(objectID: id, version: version, attributes: [.string(label), .integer(1)], relationships: [])
    }

    /// A store of `scheme` holding seats labelled `labels`; returns it and their IDs.
    static func seats(_ scheme: String, _ labels: [String], in directory: URL) throws -> (
        any PersistentStore, [ObjectID]
    ) {
        let url = scheme == "memory" ? StoreURL(scheme: "memory", location: "") : storeURL(scheme, in: directory)
        let store = try BuiltInBackends.registry.backend(for: scheme).open(url, model: model, options: StoreOptions())
        let ids = try store.obtainPermanentIDs(for: "Seat", count: labels.count)
        try store.save(SaveRequest(inserts: zip(ids, labels).map { snapshot($0, $1) }))
        return (store, ids)
    }

    static func labels(_ store: any PersistentStore, _ ids: [ObjectID]) throws -> [String] {
        try store.snapshots(of: "Seat", among: ids).map { snapshot in
            if case .string(let label) = snapshot.attributes[0] { label } else { "?" }
        }
    }

    static func update(_ id: ObjectID, to label: String) -> SaveRequest.Update {
        SaveRequest.Update(snapshot(id, label, version: 1), expectedVersion: 1)
    }

    @Test(arguments: ["sqlite", "lmdb", "xml", "memory"])
    func twoObjectsSwapTheirValuesAndThreeRotateThem(_ scheme: String) throws {
        try withTemporaryDirectory { directory in
            let (store, ids) = try Self.seats(scheme, ["A1", "A2", "A3"], in: directory)
            defer { try? store.close() }
            try store.save(SaveRequest(updates: [Self.update(ids[0], to: "A2"), Self.update(ids[1], to: "A1")]))
            #expect(try Self.labels(store, ids) == ["A2", "A1", "A3"])
            let rotate = [
                SaveRequest.Update(Self.snapshot(ids[0], "A3", version: 2), expectedVersion: 2),
                SaveRequest.Update(Self.snapshot(ids[1], "A2", version: 2), expectedVersion: 2),
                SaveRequest.Update(Self.snapshot(ids[2], "A1", version: 1), expectedVersion: 1),
            ]
            try store.save(SaveRequest(updates: rotate))
            #expect(try Self.labels(store, ids) == ["A3", "A2", "A1"])
        }
    }

    @Test(arguments: ["sqlite", "lmdb", "xml", "memory"])
    func twoObjectsTakingOneValueFailAndWriteNothing(_ scheme: String) throws {
        try withTemporaryDirectory { directory in
            let (store, ids) = try Self.seats(scheme, ["A1", "A2", "A3"], in: directory)
            defer { try? store.close() }
            let error = #expect(throws: StrataError.self) {
                try store.save(
                    SaveRequest(
                        updates: [
                            Self.update(ids[0], to: "A2"), Self.update(ids[1], to: "B9"), Self.update(ids[2], to: "B9"),
                        ]))
            }
            #expect(error?.code == .uniqueConstraint)
            #expect(try Self.labels(store, ids) == ["A1", "A2", "A3"])
        }
    }

    @Test(arguments: ["sqlite", "lmdb", "xml", "memory"])
    func aSwapWithAStaleObjectIsAConflict(_ scheme: String) throws {
        try withTemporaryDirectory { directory in
            let (store, ids) = try Self.seats(scheme, ["A1", "A2"], in: directory)
            defer { try? store.close() }
            let stale = SaveRequest.Update(Self.snapshot(ids[1], "A1", version: 7), expectedVersion: 7)
            let error = #expect(throws: StrataError.self) {
                try store.save(SaveRequest(updates: [Self.update(ids[0], to: "A2"), stale]))
            }
            #expect(error?.code == .conflict || error?.code == .uniqueConstraint)
            #expect(try Self.labels(store, ids) == ["A1", "A2"])
        }
    }

    /// The same swap as a user writes it: two objects fetched in a context trade their labels.
    @Test(arguments: ["sqlite", "lmdb", "xml", "memory"])
    func aContextSavesTwoObjectsThatSwapTheirValues(_ scheme: String) throws {
        try withTemporaryDirectory { directory in
            let (store, ids) = try Self.seats(scheme, ["A1", "A2"], in: directory)
            let coordinator = StoreCoordinator(model: Self.model)
            try coordinator.addStore(store)
            let context = ObjectContext(coordinator: coordinator)
            let seats = try context.fetch(FetchRequest(entityName: "Seat", sorts: [Sort("label")]))
            seats[0]["label"] = "A2"
            seats[1]["label"] = "A1"
            try context.save()
            #expect(try Self.labels(store, ids) == ["A2", "A1"])
        }
    }
}
