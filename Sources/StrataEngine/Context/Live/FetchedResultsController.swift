import StrataCore

/// What happened to one object of a ``FetchedResultsController``'s results.
public enum FetchedResultsChangeType: Sendable, Hashable {
    /// It joined the results (at the new index).
    case insert
    /// It left the results (from the old index).
    case delete
    /// It changed position (from the old index to the new one).
    case move
    /// Its values changed (at the new index).
    case update
}

/// Told by a ``FetchedResultsController`` when its results change, on the context's queue. Every
/// method has an empty default.
public protocol FetchedResultsControllerDelegate: AnyObject {
    /// The results are about to change: begin a batch of updates.
    func controllerWillChangeContent(_ controller: FetchedResultsController)
    /// One object changed: `index` is its position in the previous results (for a delete or a
    /// move), `newIndex` its position in the new ones (for an insert, a move or an update).
    /// Deletions come first, then insertions, moves and updates, as a batch update wants them.
    func controller(
        _ controller: FetchedResultsController, didChange objectID: ObjectID, at index: Int?,
        for type: FetchedResultsChangeType, newIndex: Int?)
    /// The results changed: end the batch of updates.
    func controllerDidChangeContent(_ controller: FetchedResultsController)
}

extension FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: FetchedResultsController) {}
    public func controller(
        _ controller: FetchedResultsController, didChange objectID: ObjectID, at index: Int?,
        for type: FetchedResultsChangeType, newIndex: Int?
    ) {}
    public func controllerDidChangeContent(_ controller: FetchedResultsController) {}
}

/// The results of a fetch request, kept up to date, for code that prefers callbacks to an
/// asynchronous sequence: Core Data's fetched-results controller, on Strata's live queries (see
/// ``ObjectContext/liveResults(for:sectionKeyPath:)`` for what it hears and when it refetches).
///
/// Use it on its context's queue: its delegate is called there, synchronously, as the context
/// processes a change (at the end of a perform block, at a save, a merge). Dropping the
/// controller stops the observation.
public final class FetchedResultsController {
    /// The observed context.
    public let context: ObjectContext
    /// The request whose results it keeps.
    public let fetchRequest: FetchRequest
    /// The key path the results are sectioned by, if any.
    public let sectionKeyPath: String?
    /// Told of every change of the results.
    public weak var delegate: (any FetchedResultsControllerDelegate)?
    /// The results' IDs, in order (empty before ``performFetch()``).
    public private(set) var fetchedObjectIDs: [ObjectID] = []
    /// The sections, with a section key path.
    public private(set) var sections: [LiveSection]?
    private var key: Int?
    private var sink: ControllerSink?
    /// IDs of ``fetchedObjectIDs`` that changed since it was set (old to new).
    fileprivate var renamed: [ObjectID: ObjectID] = [:]
    /// Positions of the results that went through the general diff (matching by hash and a
    /// longest increasing run) since the first fetch: what a change cost beyond one walk.
    package private(set) var generallyDiffedPositions = 0

    /// A controller for `fetchRequest` on `context`; call ``performFetch()`` to start it.
    public init(fetchRequest: FetchRequest, context: ObjectContext, sectionKeyPath: String? = nil) {
        self.fetchRequest = fetchRequest
        self.context = context
        self.sectionKeyPath = sectionKeyPath
    }

    /// Fetches the results and starts keeping them up to date (no delegate call for this first
    /// fetch). Calling it again starts over.
    ///
    /// - Throws: ``StrataError`` for a request that does not fit the model, or a store failure.
    public func performFetch() throws {
        stop()
        let sink = ControllerSink(controller: self)
        self.sink = sink
        key = try context.subscribeLive(fetchRequest, sectionKeyPath: sectionKeyPath, sink: sink)
    }

    /// The object at `index` of the results, from the context.
    public func object(at index: Int) -> ManagedObject { context.object(with: fetchedObjectIDs[index]) }

    /// Every object of the results, from the context.
    public var fetchedObjects: [ManagedObject] { fetchedObjectIDs.map { context.object(with: $0) } }

    /// Takes a new state, telling the delegate (none for the first).
    fileprivate func receive(_ state: LiveState, updated: Set<ObjectID>) {
        let isFirst = sink?.hasReceived != true
        sink?.hasReceived = true
        let diff = LiveDiff(
            from: fetchedObjectIDs, to: state.objectIDs, updating: updated, renaming: renamed,
            generallyDiffed: &generallyDiffedPositions)
        renamed = [:]
        fetchedObjectIDs = state.objectIDs
        sections = state.sections
        guard !isFirst, !diff.isEmpty, let delegate else { return }
        delegate.controllerWillChangeContent(self)
        for change in diff.deleted {
            delegate.controller(self, didChange: change.objectID, at: change.index, for: .delete, newIndex: nil)
        }
        for change in diff.inserted {
            delegate.controller(self, didChange: change.objectID, at: nil, for: .insert, newIndex: change.index)
        }
        for move in diff.moved {
            delegate.controller(self, didChange: move.objectID, at: move.from, for: .move, newIndex: move.to)
        }
        for change in diff.updated {
            delegate.controller(self, didChange: change.objectID, at: nil, for: .update, newIndex: change.index)
        }
        // A row whose ID changed (a temporary ID made permanent) is updated in place, under its
        // new ID, unless it was reported as updated already.
        if !diff.renamed.isEmpty {
            let reported = Set(diff.updated.map(\.objectID))
            for (index, id) in Self.positions(of: diff.renamed, in: state.objectIDs, after: diff)
            where !reported.contains(id) {
                delegate.controller(self, didChange: id, at: nil, for: .update, newIndex: index)
            }
        }
        delegate.controllerDidChangeContent(self)
    }

    /// The positions in `objectIDs`, the new result of `diff`, of the objects `renamed` names,
    /// by increasing position. When no row joined or left, rows were only reordered, and a row
    /// is at its old position or near it (among its ties): it is looked for there, and only one
    /// not found nearby costs a walk of the result.
    private static func positions(of renamed: [LiveDiff.Rename], in objectIDs: [ObjectID], after diff: LiveDiff)
        -> [(index: Int, objectID: ObjectID)]
    {
        var found: [(index: Int, objectID: ObjectID)] = []
        var missing = Set<ObjectID>()
        let reordered = diff.inserted.isEmpty && diff.deleted.isEmpty
        for rename in renamed {
            let nearby = reordered ? nearbyIndex(of: rename.objectID, around: rename.index, in: objectIDs) : nil
            if let nearby { found.append((nearby, rename.objectID)) } else { missing.insert(rename.objectID) }
        }
        if !missing.isEmpty {
            for (index, id) in objectIDs.enumerated() where missing.contains(id) { found.append((index, id)) }
        }
        found.sort { $0.index < $1.index }
        return found
    }

    /// The position of `id` in `objectIDs` within 64 of `index`, looking outwards from it.
    private static func nearbyIndex(of id: ObjectID, around index: Int, in objectIDs: [ObjectID]) -> Int? {
        for distance in 0...64 {
            if index + distance < objectIDs.count, objectIDs[index + distance] == id { return index + distance }
            if distance > 0, index - distance >= 0, index - distance < objectIDs.count,
                objectIDs[index - distance] == id
            {
                return index - distance
            }
        }
        return nil
    }

    /// Stops observing (the subscription leaves the context at once when called on its queue).
    private func stop() {
        guard let key else { return }
        self.key = nil
        sink = nil
        context.liveRegistry?.remove(key)
    }

    deinit {
        if let key { LiveObservation.unsubscribe(key, from: WeakContextReference(context)) }
    }
}

/// Hands a subscription's states to a controller it does not keep alive.
private final class ControllerSink: LiveSink {
    weak var controller: FetchedResultsController?
    var hasReceived = false

    init(controller: FetchedResultsController) { self.controller = controller }

    func receive(_ state: LiveState, updated: Set<ObjectID>) {
        controller?.receive(state, updated: updated)
    }

    func rename(_ renamed: [ObjectID: ObjectID]) {
        guard let controller else { return }
        for (old, new) in controller.renamed { if let newer = renamed[new] { controller.renamed[old] = newer } }
        controller.renamed.merge(renamed) { current, _ in current }
    }

    func finish(throwing error: (any Error)?) {}
}
