import StrataCore

/// The objects of a fetch, as a random-access collection.
///
/// Without a batch size it holds every object. With one (``FetchRequest/batchSize``) it holds
/// only the IDs, and loads the objects a batch at a time as you reach them, keeping at most two
/// batches alive: iterating a million objects with a batch size of 1,000 keeps about 2,000
/// objects and snapshots in memory, not a million.
public final class FetchedResults: RandomAccessCollection {
    /// The IDs of the results, in order.
    ///
    /// For a fetch without a batch size they are read from the objects on first use (the
    /// results do not keep a second array of a large fetch's IDs unless asked).
    public var objectIDs: [ObjectID] {
        if let ids { return ids }
        let read = all?.map(\.objectID) ?? []
        ids = read
        return read
    }
    private var ids: [ObjectID]?
    private let context: ObjectContext
    /// Every object, for a fetch without a batch size: reading one is an array access.
    private let all: [ManagedObject]?
    private let batchSize: Int
    /// The batch read last and the one before it (a batched fetch keeps these two alive).
    private var current: LoadedBatch?
    private var previous: LoadedBatch?

    /// One loaded batch of a batched fetch.
    private struct LoadedBatch {
        let number: Int
        let objects: [ManagedObject]
    }

    /// Results of `objects` (`objectIDs` may be `nil` then), or of the IDs `objectIDs` loaded in
    /// batches of `batchSize`.
    init(objectIDs: [ObjectID]?, objects: [ManagedObject]?, context: ObjectContext, batchSize: Int) {
        precondition(objectIDs != nil || objects != nil, "fetched results need their objects or IDs")
        self.ids = objectIDs
        self.context = context
        self.all = objects
        self.batchSize = Swift.max(1, batchSize)
    }

    /// Every object, in order: the array itself for a fetch without a batch size (no copy),
    /// else each batch loaded in turn.
    var objects: [ManagedObject] { all ?? Array(self) }

    /// The first index.
    public var startIndex: Int { 0 }
    /// One past the last index.
    public var endIndex: Int { all?.count ?? ids?.count ?? 0 }

    /// The object at `position`; loads its batch when needed. O(1) amortized.
    public subscript(position: Int) -> ManagedObject {
        context.checkConfinement()
        if let all { return all[position] }
        precondition(
            position >= 0 && position < endIndex,
            "index \(position) is out of the results' range 0..<\(endIndex)")
        let number = position / batchSize
        let start = number * batchSize
        if let current, current.number == number { return current.objects[position - start] }
        if let previous, previous.number == number {
            swap(&self.current, &self.previous)
            return previous.objects[position - start]
        }
        let end = Swift.min(start + batchSize, objectIDs.count)
        let objects = context.materialize(Array(objectIDs[start..<end]))
        previous = current
        current = LoadedBatch(number: number, objects: objects)
        return objects[position - start]
    }
}
