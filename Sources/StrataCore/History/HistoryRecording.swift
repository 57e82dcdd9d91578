import Foundation

/// A store that keeps persistent history: each save appends one ``HistoryTransaction`` in the same
/// atomic write, so the history holds a save exactly when the data does.
///
/// Every built-in persistent backend records history unless its options turn it off
/// (``HistoryOptions``). The engine reads it through ``PersistentStore/capability(_:)``.
///
/// ## Implementation requirements
///
/// The conformance kit checks each point.
/// - **Atomic**: a save that fails writes no transaction; a save that commits writes exactly one,
///   with the next sequence (``lastHistoryToken()`` plus one), even across processes.
/// - **Content**: build the changes with ``HistoryChangeRecorder``, which needs the stored state
///   of each updated and deleted object before the save (``SaveRequest/Update/previous`` when the
///   caller gave it at the expected version; the stored row otherwise). A save that inserts, updates
///   and deletes no object records nothing (metadata changes alone are not history). Batch
///   operations record one transaction each, as updates and deletes.
/// - **Reading**: ``fetchHistory(_:)`` in sequence order, filtered with
///   ``HistoryRequest/admitting(_:)``, after checking the request with
///   ``HistoryRequest/validate(storeIdentifier:prunedThrough:path:)``. The limit counts the
///   transactions returned.
/// - **Damage**: a transaction that cannot be decoded is ``StrataError/Code/storeCorrupt`` with its
///   token in `location["token"]`; reading objects is never affected by damaged history.
public protocol HistoryRecording: PersistentStore {
    /// Whether saves append to the history (``HistoryOptions/isEnabled``).
    var recordsHistory: Bool { get }

    /// The transactions `request` asks for, the oldest first.
    ///
    /// - Throws: ``StrataError/Code/historyExpired`` when the transactions after the request's
    ///   token were pruned; ``StrataError/Code/invalidRequest`` for a token of another store.
    func fetchHistory(_ request: HistoryRequest) throws -> [HistoryTransaction]

    /// The token of the last committed transaction, by any process; `nil` before the first.
    /// Cheap: a container polls it to notice other processes' saves.
    func lastHistoryToken() throws -> HistoryToken?

    /// Deletes transactions, the oldest first, and returns how many it deleted. Readers asking
    /// for history after a pruned token get ``StrataError/Code/historyExpired`` from then on.
    @discardableResult
    func pruneHistory(_ pruning: HistoryPruning) throws -> Int

    /// Makes the history go on after `sequence`, as if every transaction through it had been
    /// recorded and then pruned: deletes the transactions through `sequence` and raises the last
    /// pruned sequence to it (never lowers it), so the next recorded save gets `sequence + 1` (or
    /// more) and a reader holding an older token gets ``StrataError/Code/historyExpired``. Works
    /// whether or not the store records history (``recordsHistory``).
    ///
    /// A store rebuilt under the same identifier calls it with the last sequence of the store it
    /// replaces (a migration that copies the objects into a new store does), so no token is
    /// handed out twice. The default throws ``StrataError/Code/unsupported``.
    func continueHistory(after sequence: Int64) throws
}

extension HistoryRecording {
    /// Throws ``StrataError/Code/unsupported``: the store cannot move its history on.
    public func continueHistory(after sequence: Int64) throws {
        throw StrataError(
            .unsupported, "the \(url.scheme) store at \(url) cannot continue its history after sequence \(sequence)",
            location: ["url": url.description, "sequence": String(sequence)])
    }
}

/// Which transactions ``HistoryRecording/pruneHistory(_:)`` deletes.
public enum HistoryPruning: Sendable, Hashable {
    /// The transactions up to and including this token.
    case through(HistoryToken)
    /// The transactions committed before this date.
    case before(Date)
    /// All but the newest `count` transactions.
    case keepingLast(Int)
}

extension HistoryPruning {
    /// Checks the pruning against the store it is for, before a store prunes anything.
    ///
    /// - Throws: ``StrataError/Code/invalidRequest`` for a token of another store, or a negative
    ///   count to keep; `location` has `path` and the token or count.
    public func validate(storeIdentifier: String, path: String) throws {
        switch self {
        case .through(let token) where token.storeIdentifier != storeIdentifier:
            throw StrataError(
                .invalidRequest,
                "the history token \(token) belongs to store '\(token.storeIdentifier)', not '\(storeIdentifier)'",
                location: ["path": path, "token": token.description])
        case .keepingLast(let count) where count < 0:
            throw StrataError(
                .invalidRequest, "cannot keep a negative number (\(count)) of history transactions",
                location: ["path": path, "count": String(count)])
        default: break
        }
    }
}
