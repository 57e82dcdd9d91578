import StrataCore

/// The objects behind a ``ContextChanges``, when the poster of a notification has them at
/// hand (so it need not look every ID up again).
struct ChangedObjects {
    var inserted: [ManagedObject] = []
    var updated: [ManagedObject] = []
    var deleted: [ManagedObject] = []
}

/// What a save wrote: the IDs for the did-save notification, and the objects behind them (the
/// deleted ones have left the context, so the notification lists none).
struct SavedChanges {
    var changes: ContextChanges
    var objects: ChangedObjects
}

/// The object sets a notification carries under ``ObjectContext/insertedObjectsKey``,
/// ``ObjectContext/updatedObjectsKey`` and ``ObjectContext/deletedObjectsKey``.
struct ObjectSets {
    var inserted: Set<ManagedObject>
    var updated: Set<ManagedObject>
    var deleted: Set<ManagedObject>
}
