import StrataCore

extension ConformanceKit {
    /// Checks that a store keeps its capabilities behind a wrapper that forwards its calls
    /// (``ConformanceSubject/wrap``, ``ForwardingStore`` by default), as it must behind a
    /// container: each capability is found through the wrapper and works there.
    static let wrapperChecks: [ConformanceCheck] = [
        ConformanceCheck("capabilitiesSurviveAForwardingWrapper") { run in
            let store = try run.open()
            let wrapped = run.subject.wrap(store)
            try run.expectSameCapabilities(wrapped, as: store)

            let ids = try run.ids(wrapped, "Employee", 3)
            let employees = try ids.enumerated().map { i, id in try run.snapshot(id, ["name": .string("E\(i)")]) }
            try wrapped.save(SaveRequest(inserts: employees))
            if let serving = wrapped.capability((any SnapshotServing).self) {
                try run.expectEqual(
                    try serving.snapshot(for: ids[0]), try run.one(wrapped, ids[0]),
                    "a lookup through the wrapper vs a fetch")
            }
            let sorted = FetchRequest(entityName: "Employee", sorts: [Sort("name", ascending: false)], limit: 2)
            try run.expectEqual(
                try wrapped.fetch(sorted).snapshots(), try store.fetch(sorted).snapshots(),
                "a sorted, limited fetch through the wrapper vs the store's")
            if let keys = wrapped.capability((any KeyPreservingStore).self), let last = ids.last?.primaryKey {
                try keys.reserveKeys(through: last + 10, for: "Employee")
                let next = try run.ids(wrapped, "Employee", 1)[0]
                try run.expect(
                    (next.primaryKey ?? 0) > last + 10,
                    "after reserving keys through \(last + 10) through the wrapper, \(next) was handed out")
            }
            if let batch = wrapped.capability((any BatchOperating).self) {
                let predicate = try ObjectPredicate(format: "name == %@", "E1")
                let deleted = try batch.batchDelete(entityName: "Employee", predicate: predicate)
                try run.expectEqual(deleted.objectIDs, [ids[1]], "IDs a batch delete through the wrapper reports")
                try run.expectEqual(
                    try run.all(wrapped, "Employee").map(\.objectID), [ids[0], ids[2]],
                    "objects left after a batch delete through the wrapper")
            }
        }
    ]
}

extension ConformanceRun {
    /// Every capability the kit knows, by name, as found on a store.
    static func capabilities(of store: any PersistentStore) -> [(name: String, found: Bool)] {
        [
            ("BatchOperating", store.capability((any BatchOperating).self) != nil),
            ("KeyPreservingStore", store.capability((any KeyPreservingStore).self) != nil),
            ("SnapshotServing", store.capability((any SnapshotServing).self) != nil),
        ]
    }

    /// Fails unless `wrapped` offers exactly the capabilities of `store`.
    func expectSameCapabilities(_ wrapped: any PersistentStore, as store: any PersistentStore) throws {
        let pairs = zip(Self.capabilities(of: store), Self.capabilities(of: wrapped))
        for (mine, theirs) in pairs where mine.found != theirs.found {
            throw fail(
                mine.found
                    ? "the wrapper hides the store's \(mine.name) capability; it must forward capability(_:) to the store"
                    : "the wrapper offers \(mine.name), which the store lacks")
        }
    }
}
