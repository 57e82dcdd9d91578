import StrataCore
import StrataEngine

/// One state of a live fetch of models: the identifiers in the descriptor's order, with what
/// changed since the previous element (see ``ModelContext/liveResults(_:)``).
public struct ModelLiveResult: Sendable, Hashable {
    /// One model at one position.
    public struct Change: Sendable, Hashable {
        /// The model.
        public var identifier: PersistentIdentifier
        /// Its position (in the previous result for a deletion, in the new one otherwise).
        public var index: Int
    }

    /// One model that changed position.
    public struct Move: Sendable, Hashable {
        /// The model.
        public var identifier: PersistentIdentifier
        /// Its position in the previous result.
        public var from: Int
        /// Its position in the new result.
        public var to: Int
    }

    /// One model whose identifier changed (a temporary one made permanent by a save) while it
    /// stayed in the results.
    public struct Rename: Sendable, Hashable {
        /// Its identifier in the previous result.
        public var previousIdentifier: PersistentIdentifier
        /// Its identifier now.
        public var identifier: PersistentIdentifier
        /// Its position in the previous result.
        public var index: Int
    }

    /// The matching models, in order.
    public var identifiers: [PersistentIdentifier]
    /// Models whose identifier changed, by old position: the previous result names them by
    /// ``Rename/previousIdentifier``, the other changes by their new identifiers.
    public var renamed: [Rename]
    /// Models that joined, by new position.
    public var inserted: [Change]
    /// Models that left, by old position.
    public var deleted: [Change]
    /// Models in both results whose relative order changed.
    public var moved: [Move]
    /// Models in both results whose values changed, by new position.
    public var updated: [Change]

    init(_ result: LiveResult) {
        identifiers = result.objectIDs.map(PersistentIdentifier.init)
        renamed = result.diff.renamed.map {
            Rename(
                previousIdentifier: PersistentIdentifier($0.previousID), identifier: PersistentIdentifier($0.objectID),
                index: $0.index)
        }
        inserted = result.diff.inserted.map { Change(identifier: PersistentIdentifier($0.objectID), index: $0.index) }
        deleted = result.diff.deleted.map { Change(identifier: PersistentIdentifier($0.objectID), index: $0.index) }
        moved = result.diff.moved.map {
            Move(identifier: PersistentIdentifier($0.objectID), from: $0.from, to: $0.to)
        }
        updated = result.diff.updated.map { Change(identifier: PersistentIdentifier($0.objectID), index: $0.index) }
    }
}

/// A live fetch of models: an asynchronous sequence of ``ModelLiveResult``s, the first the
/// fetch as it stands, each next one after a change, coalesced for a consumer that falls behind.
public struct ModelLiveResults: AsyncSequence, Sendable {
    public typealias Element = ModelLiveResult

    let base: LiveResults

    /// The iterator: waits for the next coalesced result.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: LiveResults.AsyncIterator

        /// The next result, or `nil` once the observation stopped.
        public mutating func next() async throws -> ModelLiveResult? {
            try await base.next().map(ModelLiveResult.init)
        }

        /// The next result when one is ready, without waiting.
        package func nextIfReady() throws -> ModelLiveResult? { try base.nextIfReady().map(ModelLiveResult.init) }
    }

    /// An iterator over the results.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
}

extension ModelContext {
    /// The identifiers of the models `descriptor` matches, kept up to date as the context
    /// changes: the engine's live query (docs/LiveQueries.md) on a fetch descriptor. Use the
    /// context where you use it for fetches; turn identifiers into models with
    /// ``model(for:)`` there.
    ///
    /// - Throws: ``StrataError`` for a descriptor that does not translate, or a store failure.
    public func liveResults<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> ModelLiveResults {
        ModelLiveResults(base: try objectContext.liveResults(for: fetchRequest(for: descriptor)))
    }
}
