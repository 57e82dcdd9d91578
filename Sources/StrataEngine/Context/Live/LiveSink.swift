import StrataCore

/// A state of a live query as its subscription hands it on: IDs in order and sections.
struct LiveState: Sendable {
    var objectIDs: [ObjectID]
    var sections: [LiveSection]?
}

/// Where a live subscription hands its states: an asynchronous sequence's mailbox or a
/// controller. Called on the observed context's queue.
protocol LiveSink: AnyObject {
    /// The query's new state, with the members whose values changed since the last one.
    func receive(_ state: LiveState, updated: Set<ObjectID>)
    /// Members' IDs changed (temporary IDs made permanent): the next state names them by their
    /// new IDs, and its diff reports them as renamed. Comes before that state.
    func rename(_ renamed: [ObjectID: ObjectID])
    /// The query ended: it could not run again (`error`), or its context went away.
    func finish(throwing error: (any Error)?)
}
