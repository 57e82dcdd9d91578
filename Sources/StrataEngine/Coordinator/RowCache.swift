import StrataCore

/// Snapshots recently read from or written to the stores, shared by every context of a
/// coordinator, so that firing a fault rarely needs a store round trip.
///
/// Bounded: when it holds ``capacity`` snapshots it forgets them all and starts again, so its
/// memory never grows with the store. O(1) per operation.
final class RowCache: Sendable {
    let capacity: Int
    private let rows = Locked<[ObjectID: Snapshot]>([:])

    init(capacity: Int) { self.capacity = capacity }

    func snapshot(for id: ObjectID) -> Snapshot? { rows.withLock { $0[id] } }

    func store(_ snapshots: some Sequence<Snapshot>) {
        rows.withLock { rows in
            for snapshot in snapshots {
                if rows.count >= capacity { rows.removeAll(keepingCapacity: true) }
                if let cached = rows[snapshot.objectID], cached.version > snapshot.version { continue }
                rows[snapshot.objectID] = snapshot
            }
        }
    }

    func remove(_ ids: some Sequence<ObjectID>) {
        rows.withLock { rows in for id in ids { rows.removeValue(forKey: id) } }
    }

    /// Forgets every snapshot whose ID `shouldRemove` accepts. O(n) in the cached snapshots.
    func removeAll(where shouldRemove: (ObjectID) -> Bool) {
        rows.withLock { rows in rows = rows.filter { !shouldRemove($0.key) } }
    }

    var count: Int { rows.withLock { $0.count } }
}
