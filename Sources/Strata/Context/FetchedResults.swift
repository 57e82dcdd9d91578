import StrataCore

/// The objects of a fetch, as a random-access collection.
///
/// Without a batch size it holds every object. With one (``FetchRequest/batchSize``) it holds
/// only the IDs, and loads the objects a batch at a time as you reach them, keeping at most two
/// batches alive: iterating a million objects with a batch size of 1,000 keeps about 2,000
/// objects and snapshots in memory, not a million.
public final class FetchedResults: RandomAccessCollection {
    /// The IDs of the results, in order.
    public let objectIDs: [ObjectID]
    private let context: ObjectContext
    private let batchSize: Int
    private var loaded: [Int: [ManagedObject]] = [:]
    private var recent: [Int] = []

    init(objectIDs: [ObjectID], objects: [ManagedObject]?, context: ObjectContext, batchSize: Int) {
        self.objectIDs = objectIDs
        self.context = context
        self.batchSize = objects == nil ? Swift.max(1, batchSize) : Swift.max(1, objectIDs.count)
        if let objects { loaded[0] = objects }
    }

    /// The first index.
    public var startIndex: Int { 0 }
    /// One past the last index.
    public var endIndex: Int { objectIDs.count }

    /// The object at `position`; loads its batch when needed. O(1) amortized.
    public subscript(position: Int) -> ManagedObject {
        context.checkConfinement()
        let batch = position / batchSize
        if let objects = loaded[batch] { return objects[position - batch * batchSize] }
        let start = batch * batchSize, end = Swift.min(start + batchSize, objectIDs.count)
        let objects = context.materialize(Array(objectIDs[start..<end]))
        loaded[batch] = objects
        recent.append(batch)
        if recent.count > 2 { loaded.removeValue(forKey: recent.removeFirst()) }
        return objects[position - start]
    }
}
