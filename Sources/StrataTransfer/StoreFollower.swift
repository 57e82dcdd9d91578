import Foundation
import StrataCore

/// Keeps a copy of a store in step with the source's persistent history: a replica of any kind
/// (an LMDB copy of a SQLite store, ...) that receives every later save of the source.
///
/// ```swift
/// let follower = StoreFollower()
/// let replica = try follower.start(from: source, to: replicaURL, backend: lmdb)
/// try follower.follow(from: source, to: replica.store) { stopRequested }
/// ```
///
/// ``start(from:to:backend:sourceBackend:replacingExisting:copier:progress:)`` copies the source
/// (``StoreCopier``, keys kept) and records in the copy's metadata, under
/// ``metadataKey(following:)``, the source's history token from before the copy.
/// ``follow(from:to:isCancelled:applied:)`` then polls the source's
/// ``HistoryRecording/lastHistoryToken()`` and applies each batch of new transactions to the copy
/// as **one** save that also moves the recorded token, so a follower stopped or killed at any
/// moment resumes after the last batch it applied, exactly once.
///
/// A batch is applied by state, not by replaying values: every object the batch touched is
/// read from the source as it is now and inserted, updated or deleted (when the source no longer
/// holds it) in the copy under the same key, together with the objects on the other side of
/// every link that changed, so both sides of each relationship agree after each save. Applying a
/// batch again changes nothing, which is what lets the copy run while the source keeps saving:
/// the transactions after the token recorded before the copy are applied over it.
///
/// Every process that saves into the source must record history (``HistoryOptions``): a save
/// made with `history=off` reaches the copy only when a later recorded save touches its objects.
public struct StoreFollower: Sendable {
    /// Transactions of the source applied in one save of the copy.
    public var transactionsPerSave: Int
    /// How long to wait before asking the source again when it had nothing new, in seconds.
    public var pollInterval: TimeInterval

    /// The author of the follower's saves in the copy's own history.
    public static let author = "strata.follow"
    /// The value of ``metadataKey(following:)`` while the first copy is being made.
    public static let copyingMarker = "copying"

    /// Creates a follower applying up to `transactionsPerSave` transactions per save, asking the
    /// source for new ones every `pollInterval` seconds when it is idle.
    public init(transactionsPerSave: Int = 100, pollInterval: TimeInterval = 0.05) {
        self.transactionsPerSave = transactionsPerSave
        self.pollInterval = pollInterval
    }

    /// The copy's user-metadata key recording how far it follows the store `sourceIdentifier`.
    public static func metadataKey(following sourceIdentifier: String) -> String {
        "strata.follow." + sourceIdentifier
    }

    /// How far a store follows another one, as its metadata records it.
    public enum Position: Sendable, Hashable {
        /// It does not follow that store.
        case none
        /// Its first copy was started and did not finish: it holds part of the objects.
        case copying
        /// It holds every transaction of the source through this token.
        case applied(HistoryToken)
    }

    /// How far the store with `metadata` follows the store `sourceIdentifier`.
    ///
    /// - Throws: ``StrataError/Code/storeCorrupt`` when the recorded value is not a token of that store.
    public static func position(in metadata: StoreMetadata, following sourceIdentifier: String) throws -> Position {
        let key = metadataKey(following: sourceIdentifier)
        guard let text = metadata.userInfo[key] else { return .none }
        if text == copyingMarker { return .copying }
        guard let token = try? HistoryToken(parsing: text), token.storeIdentifier == sourceIdentifier else {
            throw StrataError(
                .storeCorrupt,
                "the metadata key \(key) of the store \(metadata.storeIdentifier) holds '\(text.prefix(300))', not a history token of \(sourceIdentifier); copy again with --replace (replacingExisting: true)",
                location: ["key": key, "value": text])
        }
        return .applied(token)
    }

    /// The source's history, checked to be on.
    ///
    /// - Throws: ``StrataError/Code/unsupported`` when the source keeps no history or records none
    ///   (`history=off`): there would be nothing to follow.
    public static func history(of source: any PersistentStore) throws -> any HistoryRecording {
        guard let history = source.capability((any HistoryRecording).self) else {
            throw StrataError(
                .unsupported,
                "the \(source.url.scheme) store at \(source.url) keeps no history, so it cannot be followed",
                location: ["url": source.url.description])
        }
        guard history.recordsHistory else {
            throw StrataError(
                .unsupported,
                "the store at \(source.url) is opened with history off (\(HistoryOptions.enabledOption)=off), so its saves cannot be followed; remove the option",
                location: ["url": source.url.description, "option": HistoryOptions.enabledOption])
        }
        return history
    }

    /// What ``start(from:to:backend:sourceBackend:replacingExisting:copier:progress:)`` did.
    public struct Start {
        /// The copy, open for writing: pass it to ``StoreFollower/follow(from:to:isCancelled:applied:)``.
        public var store: any PersistentStore
        /// The copy made, or `nil` when the destination already followed the source and resumes.
        public var copied: StoreCopier.Report?
        /// The last transaction of the source the copy holds.
        public var position: HistoryToken
    }

    /// Makes the destination a copy that follows `source`, or resumes one that does.
    ///
    /// - A destination whose metadata records a position in `source`'s history (a follower
    ///   stopped or killed earlier) resumes from there; nothing is copied.
    /// - A destination whose first copy was interrupted is copied again from scratch.
    /// - Otherwise `copier` copies the source while it may keep saving
    ///   (``StoreCopier/sourceMayChange``): a destination holding objects is refused unless `replacingExisting`, which also
    ///   copies over a destination that follows the source.
    ///
    /// - Throws: ``StrataError/Code/unsupported`` when the source records no history, the copier's
    ///   errors, and the stores' errors.
    public func start(
        from source: any PersistentStore, to destination: StoreURL, backend: any StoreBackend,
        sourceBackend: (any StoreBackend)? = nil, replacingExisting: Bool = false, copier: StoreCopier = StoreCopier(),
        progress: (StoreProgress) -> Void = { _ in }
    ) throws -> Start {
        let history = try Self.history(of: source)
        let key = Self.metadataKey(following: source.identifier)
        let existing = try backend.metadata(at: destination)
        let position = try existing.map { try Self.position(in: $0, following: source.identifier) } ?? .none
        if case .applied(let token) = position, !replacingExisting {
            let store = try backend.open(
                destination, model: source.model, options: StoreOptions(createsIfMissing: false))
            return Start(store: store, copied: nil, position: token)
        }
        // Taken before the copy: the transactions after it are applied over the copy, which may
        // already hold some of them.
        let first = try history.lastHistoryToken() ?? HistoryToken(storeIdentifier: source.identifier, sequence: 0)
        var copier = copier
        copier.sourceMayChange = true
        copier.destinationMetadata[key] = Self.copyingMarker
        let report = try copier.copy(
            from: source, to: destination, backend: backend, sourceBackend: sourceBackend,
            replacingExisting: replacingExisting || position == .copying, progress: progress)
        let store = try backend.open(destination, model: source.model, options: StoreOptions(createsIfMissing: false))
        do {
            try store.save(SaveRequest(metadataChanges: [key: first.description], transactionAuthor: Self.author))
        } catch {
            try? store.close()
            throw error
        }
        return Start(store: store, copied: report, position: first)
    }

    /// What following did so far.
    public struct Progress: Sendable, Hashable {
        /// Transactions of the source applied.
        public var transactions: Int
        /// Saves made in the copy.
        public var saves: Int
        /// The last transaction of the source the copy holds.
        public var position: HistoryToken
    }

    /// Applies the source's new transactions to `destination` as they come, until `isCancelled`
    /// returns `true` (checked between saves and while waiting), and returns what it applied.
    ///
    /// - Parameter applied: called after each save in the copy.
    /// - Throws: ``StrataError/Code/historyExpired`` when the source pruned transactions the copy
    ///   does not hold yet (copy again, replacing the copy); ``StrataError/Code/invalidRequest``
    ///   when `destination` does not follow `source`; the stores' errors.
    @discardableResult
    public func follow(
        from source: any PersistentStore, to destination: any PersistentStore, isCancelled: () -> Bool,
        applied: (Progress) -> Void = { _ in }
    ) throws -> Progress {
        let history = try Self.history(of: source)
        var progress = Progress(transactions: 0, saves: 0, position: try recordedPosition(of: destination, source))
        while !isCancelled() {
            let last = try history.lastHistoryToken()
            if let last, last.sequence > progress.position.sequence,
                let step = try applyNext(from: source, history: history, to: destination, after: progress.position)
            {
                progress.transactions += step.transactions
                progress.saves += 1
                progress.position = step.position
                applied(progress)
                continue
            }
            wait(isCancelled)
        }
        return progress
    }

    /// Applies every transaction the source holds after the copy's position, and returns how many.
    @discardableResult
    public func catchUp(from source: any PersistentStore, to destination: any PersistentStore) throws -> Progress {
        let history = try Self.history(of: source)
        var progress = Progress(transactions: 0, saves: 0, position: try recordedPosition(of: destination, source))
        while let step = try applyNext(from: source, history: history, to: destination, after: progress.position) {
            progress.transactions += step.transactions
            progress.saves += 1
            progress.position = step.position
        }
        return progress
    }

    private func recordedPosition(of destination: any PersistentStore, _ source: any PersistentStore) throws
        -> HistoryToken
    {
        guard case .applied(let token) = try Self.position(in: destination.metadata(), following: source.identifier)
        else {
            throw StrataError(
                .invalidRequest,
                "the store at \(destination.url) does not follow \(source.url) (its metadata has no finished copy of it)",
                location: ["url": destination.url.description, "from": source.url.description])
        }
        return token
    }

    private func wait(_ isCancelled: () -> Bool) {
        var left = pollInterval
        while left > 0, !isCancelled() {
            let step = min(left, 0.05)
            Thread.sleep(forTimeInterval: step)
            left -= step
        }
    }

    /// Applies the next batch of transactions after `position` in one save; `nil` when there is none.
    private func applyNext(
        from source: any PersistentStore, history: any HistoryRecording, to destination: any PersistentStore,
        after position: HistoryToken
    ) throws -> (transactions: Int, position: HistoryToken)? {
        let transactions: [HistoryTransaction]
        do {
            transactions = try history.fetchHistory(
                HistoryRequest(after: position, limit: max(1, transactionsPerSave)))
        } catch let error as StrataError where error.code == .historyExpired {
            throw StrataError(
                .historyExpired,
                "\(source.url) pruned history that \(destination.url) has not applied yet (it holds it through \(position)); copy again with --replace (replacingExisting: true)",
                location: [
                    "url": destination.url.description, "from": source.url.description, "token": position.description,
                ])
        }
        guard let last = transactions.last else { return nil }
        let request = try FollowBatch(transactions: transactions, source: source, destination: destination).saveRequest(
            recording: [Self.metadataKey(following: source.identifier): last.token.description])
        try destination.save(request)
        return (transactions.count, last.token)
    }
}

/// One batch of the source's transactions, turned into the save that brings the copy up to it.
///
/// The save makes every object the batch touched what the source holds now, and with them every
/// object whose link to one of those changed (the other side of a relationship), and so on until
/// no link differs: the copy's two sides of each relationship then agree after the save, as the
/// source's do, whichever later transactions the source's current state already shows.
private struct FollowBatch {
    let source: any PersistentStore
    let destination: any PersistentStore
    /// Every object the batch touched (as the destination names it), in the order first touched.
    var touched: [ObjectID] = []

    init(transactions: [HistoryTransaction], source: any PersistentStore, destination: any PersistentStore) {
        self.source = source
        self.destination = destination
        var seen: Set<ObjectID> = []
        for transaction in transactions {
            for change in transaction.changes where source.model.entity(named: change.entityName) != nil {
                let id = Self.move(change.objectID, to: destination.identifier)
                if seen.insert(id).inserted { touched.append(id) }
            }
        }
    }

    static func move(_ id: ObjectID, to identifier: String) -> ObjectID {
        ObjectID(entityName: id.entityName, storeIdentifier: identifier, primaryKey: id.permanentKey)
    }

    /// The stored snapshots of `ids` in `store`, by ID in the destination's naming.
    func snapshots(of ids: [ObjectID], in store: any PersistentStore) throws -> [ObjectID: Snapshot] {
        var found: [ObjectID: Snapshot] = [:]
        for (entity, group) in Dictionary(grouping: ids, by: \.entityName)
        where store.model.entity(named: entity) != nil {
            let asked = group.map { Self.move($0, to: store.identifier) }
            for snapshot in try store.fetch(FetchRequest(entityName: entity, objectIDs: asked)).snapshots() {
                found[Self.move(snapshot.objectID, to: destination.identifier)] = snapshot
            }
        }
        return found
    }

    /// The objects `snapshot` relates to, as the destination names them.
    private func targets(_ snapshot: Snapshot?) -> Set<ObjectID> {
        guard let snapshot else { return [] }
        return Set(snapshot.relationships.flatMap(\.targets).map { Self.move($0, to: destination.identifier) })
    }

    /// The save that makes the copy's touched objects, and the objects linked to them whose links
    /// changed, what the source holds now, and records `metadata` with it.
    func saveRequest(recording metadata: [String: String?]) throws -> SaveRequest {
        var order = touched
        var current = try snapshots(of: touched, in: source)
        var held = try snapshots(of: touched, in: destination)
        var known = Set(touched)
        var frontier = touched
        while !frontier.isEmpty {
            var next: [ObjectID] = []
            for id in frontier {
                for neighbor in targets(current[id]).symmetricDifference(targets(held[id]))
                where known.insert(neighbor).inserted {
                    next.append(neighbor)
                }
            }
            guard !next.isEmpty else { break }
            current.merge(try snapshots(of: next, in: source)) { $1 }
            held.merge(try snapshots(of: next, in: destination)) { $1 }
            order += next
            frontier = next
        }
        // What the copy holds after the save: what the source holds now, among the objects
        // looked at, and the copy's other objects.
        var present = Set(current.keys)
        let others = Set(current.values.flatMap { targets($0) }).subtracting(known)
        present.formUnion(try snapshots(of: Array(others), in: destination).keys)

        var request = SaveRequest(metadataChanges: metadata, transactionAuthor: StoreFollower.author)
        var largestKeys: [String: Int64] = [:]
        for id in order {
            guard let entity = destination.model.entity(named: id.entityName) else { continue }
            guard let snapshot = current[id] else {
                // Gone from the source: deleted by this batch or a later one.
                if let stored = held[id] {
                    request.deletes.append(SaveRequest.Delete(id, expectedVersion: stored.version, previous: stored))
                }
                continue
            }
            var next = StoreCopier.rehome(snapshot, into: destination.identifier)
            for (index, value) in next.relationships.enumerated() where !value.targets.allSatisfy(present.contains) {
                next.relationships[index] =
                    switch value {
                    case .toOne: .toOne(nil)
                    case .toMany(let ids): .toMany(ids.filter(present.contains))
                    }
            }
            if let stored = held[id] {
                guard
                    next.attributes != stored.attributes || !StoreCopier.sameRelationships(next, stored, entity: entity)
                else { continue }
                next.version = stored.version
                request.updates.append(SaveRequest.Update(next, expectedVersion: stored.version, previous: stored))
            } else {
                request.inserts.append(next)
                largestKeys[id.entityName] = max(largestKeys[id.entityName] ?? 0, id.permanentKey)
            }
        }
        if !largestKeys.isEmpty {
            guard let keys = destination.capability((any KeyPreservingStore).self) else {
                throw StrataError(
                    .unsupported,
                    "the \(destination.url.scheme) store at \(destination.url) cannot insert objects under given keys (KeyPreservingStore), so it cannot follow another store",
                    location: ["url": destination.url.description])
            }
            for (entity, key) in largestKeys { try keys.reserveKeys(through: key, for: entity) }
        }
        return request
    }
}
