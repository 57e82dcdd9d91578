import StrataCore

extension ConformanceKit {
    /// Checks for stores adopting ``SnapshotServing``: the direct lookup agrees with a fetch, so
    /// a coordinator that skips its row cache for the store sees the same data. They do not
    /// apply to other stores.
    static let snapshotServingChecks: [ConformanceCheck] = [
        ConformanceCheck("directLookupAgreesWithFetchThroughInsertUpdateAndDelete") { run in
            let store = try run.capability((any SnapshotServing).self, of: try run.open())
            let ids = try run.ids(store, "Employee", 2)
            let alice = try run.snapshot(ids[0], ["name": .string("Alice")])
            let bob = try run.snapshot(ids[1], ["name": .string("Bob")])
            try store.save(SaveRequest(inserts: [alice, bob]))
            try run.expectEqual(
                try store.snapshot(for: ids[0]), try run.one(store, ids[0]), "lookup of an inserted object vs fetch")
            try run.expectEqual(try store.snapshot(for: ids[0])?.version, 1, "version of an inserted object")

            var renamed = alice
            renamed.version = 1
            renamed.attributes[run.entity("Employee").attributeIndex(named: "name")!] = .string("Alicia")
            try store.save(
                SaveRequest(updates: [.init(renamed, expectedVersion: 1)], deletes: [.init(ids[1], expectedVersion: 1)])
            )
            let looked = try store.snapshot(for: ids[0])
            try run.expectEqual(looked, try run.one(store, ids[0]), "lookup of an updated object vs fetch")
            try run.expectEqual(looked.map { run.value($0, "name") }, .string("Alicia"), "name after the update")
            try run.expectEqual(looked?.version, 2, "version after the update")
            try run.expect(
                try store.snapshot(for: ids[1]) == nil, "a deleted object must not be found by a direct lookup")
        },
        ConformanceCheck("directLookupFindsNothingForForeignTemporaryOrUnsavedIDs") { run in
            let store = try run.capability((any SnapshotServing).self, of: try run.open())
            let unsaved = try run.ids(store, "Employee", 1)[0]
            try run.expect(
                try store.snapshot(for: unsaved) == nil, "an ID handed out but never saved must not be found")
            try run.expect(
                try store.snapshot(for: ObjectID.temporary(entityName: "Employee")) == nil,
                "a temporary ID must not be found")
            let foreign = ObjectID(
                entityName: "Employee", storeIdentifier: "another-store", primaryKey: unsaved.primaryKey!)
            try store.save(SaveRequest(inserts: [try run.snapshot(unsaved, ["name": .string("Ada")])]))
            try run.expect(try store.snapshot(for: foreign) == nil, "an ID of another store must not be found")
            let wrongEntity = ObjectID(
                entityName: "Department", storeIdentifier: store.identifier, primaryKey: unsaved.primaryKey!)
            try run.expect(
                try store.snapshot(for: wrongEntity) == nil, "the same key under another entity must not be found")
        },
    ]
}
