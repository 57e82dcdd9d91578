import CStrataLMDB
import StrataCore

/// A save request checked against the model, with each object's entity layout resolved.
///
/// The checks and their messages are those of ``SaveRequest/checkShape(against:storeIdentifier:)``
/// (so every backend rejects bad input alike), done with the resolved layouts instead of a model
/// lookup per object, and with duplicates found without hashing IDs when inserts come in
/// ascending key order per entity (the usual case).
struct SavePlan {
    var insertLayouts: [EntityLayout] = []
    var updateLayouts: [EntityLayout] = []
    var deleteLayouts: [EntityLayout] = []

    private struct Key: Hashable {
        var layout: ObjectIdentifier
        var pk: Int64
    }

    init(request: SaveRequest, store: LMDBStore) throws {
        var cached: EntityLayout?
        func layout(_ name: String) throws -> EntityLayout {
            if let cached, cached.entity.name == name { return cached }
            let found = try store.layout(name)
            cached = found
            return found
        }
        insertLayouts.reserveCapacity(request.inserts.count)
        for i in request.inserts.indices {
            let layout = try layout(request.inserts[i].objectID.entityName)
            try SavePlan.checkShape(request.inserts[i], layout, store.identifier)
            insertLayouts.append(layout)
        }
        updateLayouts.reserveCapacity(request.updates.count)
        for i in request.updates.indices {
            let layout = try layout(request.updates[i].snapshot.objectID.entityName)
            try SavePlan.checkShape(request.updates[i].snapshot, layout, store.identifier)
            updateLayouts.append(layout)
        }
        deleteLayouts.reserveCapacity(request.deletes.count)
        for delete in request.deletes {
            let layout = try layout(delete.objectID.entityName)
            try delete.objectID.checkBelongs(to: store.identifier)
            deleteLayouts.append(layout)
        }
        try checkEachObjectOnce(request)
    }

    /// Throws ``StrataError/Code/invalidRequest`` when an object appears twice in the request.
    private func checkEachObjectOnce(_ request: SaveRequest) throws {
        func duplicate(_ id: ObjectID) -> StrataError {
            StrataError(
                .invalidRequest, "\(id) appears more than once in one save", location: ["object": id.uriRepresentation])
        }
        // Inserts in strictly ascending key order within runs of one entity, each entity in one
        // run, cannot repeat; otherwise fall back to a set.
        var ascending = true
        var finishedRuns = Set<ObjectIdentifier>()
        var previous: (layout: EntityLayout, pk: Int64)?
        for (i, snapshot) in request.inserts.enumerated() {
            let layout = insertLayouts[i]
            let pk = snapshot.objectID.primaryKey!
            if let previous, previous.layout === layout {
                if pk <= previous.pk {
                    ascending = false
                    break
                }
            } else {
                if let previous { finishedRuns.insert(ObjectIdentifier(previous.layout)) }
                if finishedRuns.contains(ObjectIdentifier(layout)) {
                    ascending = false
                    break
                }
            }
            previous = (layout, pk)
        }
        var seen = Set<Key>()
        if !ascending {
            seen.reserveCapacity(request.inserts.count)
            for (i, snapshot) in request.inserts.enumerated() {
                guard
                    seen.insert(Key(layout: ObjectIdentifier(insertLayouts[i]), pk: snapshot.objectID.primaryKey!))
                        .inserted
                else {
                    throw duplicate(snapshot.objectID)
                }
            }
        }
        if request.updates.isEmpty && request.deletes.isEmpty { return }
        var changed = Set<Key>()
        changed.reserveCapacity(request.updates.count + request.deletes.count)
        for (i, update) in request.updates.enumerated() {
            guard
                changed.insert(
                    Key(layout: ObjectIdentifier(updateLayouts[i]), pk: update.snapshot.objectID.primaryKey!)
                ).inserted
            else {
                throw duplicate(update.snapshot.objectID)
            }
        }
        for (i, delete) in request.deletes.enumerated() {
            guard
                changed.insert(Key(layout: ObjectIdentifier(deleteLayouts[i]), pk: delete.objectID.primaryKey!))
                    .inserted
            else {
                throw duplicate(delete.objectID)
            }
        }
        for (i, snapshot) in request.inserts.enumerated()
        where changed.contains(Key(layout: ObjectIdentifier(insertLayouts[i]), pk: snapshot.objectID.primaryKey!)) {
            throw duplicate(snapshot.objectID)
        }
    }

    /// ``Snapshot/checkShape(of:storeIdentifier:)`` with the entity from the layout.
    @inline(__always)
    static func checkShape(_ snapshot: Snapshot, _ layout: EntityLayout, _ storeIdentifier: String) throws {
        try snapshot.checkShape(of: layout.entity, storeIdentifier: storeIdentifier)
    }
}
