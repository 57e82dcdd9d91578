import Dispatch
import StrataCore
import Synchronization

/// Snapshots recently read from or written to the stores, shared by every context of a
/// coordinator, so that firing a fault rarely needs a store round trip; and the bookkeeping that
/// tells a fault whether the snapshot a fetch left it is still current.
///
/// Bounded, in two generations of up to half the ``capacity`` each: new snapshots go to the
/// newer one; when it is full the older generation is forgotten and the newer takes its place.
/// So a full cache forgets the half it filled longest ago, never everything at once, and a read
/// of more rows than it holds caches only the last ones. O(1) per operation.
///
/// **Kept snapshots.** A fault made by a fetch keeps the snapshot the fetch read, tagged with
/// the ``epoch`` at which the fetch began. Every save and every removal moves the epoch on. When
/// the fault fires, ``snapshotToFill(_:kept:epoch:)`` decides: nothing changed since (same
/// epoch), or the cache holds a snapshot as new, or no change the cache cannot show touched the
/// object since; otherwise the store must be asked. The changes the cache cannot show are IDs
/// removed from it (deleted, or refreshed elsewhere), remembered by ID, and snapshots written by
/// saves that the cache forgot, remembered as one epoch for all.
///
/// A child context's faults keep snapshots too, which its parent answered from the stores. They
/// stand for the parent's current state only while no context with children changed anything:
/// such a change moves the epoch on and is remembered as one epoch for all
/// (``recordUnsavedChange()``), so those faults then ask their parent again.
package final class RowCache: Sendable {
    /// How many snapshots it holds at most.
    package let capacity: Int
    private let state: Locked<State>
    /// ``epoch``, readable without the lock: written under it, with every change of
    /// `State.epoch`. A fault whose fetch began at the epoch still current fills from its kept
    /// snapshot with one atomic load (``keptSnapshotIsCurrent(epoch:)``), the common case of a
    /// fetch then a read of what it returned.
    private let currentEpoch = Atomic<UInt64>(1)
    /// How many times ``snapshotToFill(_:kept:epoch:throughParent:)`` took the lock; for tests.
    private let lockedVerdicts = Atomic<Int>(0)
    /// How many written snapshots ``recordSave(written:deleted:omitted:)`` was given to cache;
    /// for tests.
    private let savedSnapshotsGiven = Atomic<Int>(0)

    /// One generation of cached snapshots.
    private struct Generation {
        var rows: [ObjectID: Snapshot] = [:]
        /// The epoch of the newest save whose written snapshots `rows` may hold (0: none).
        var savedThrough: UInt64 = 0

        /// Empties the generation; returns the epoch of the newest save whose snapshots it held.
        mutating func clear() -> UInt64 {
            defer {
                savedThrough = 0
                rows.removeAll(keepingCapacity: true)
            }
            return savedThrough
        }
    }

    private struct State {
        let generationSize: Int
        var newer = Generation()
        var older = Generation()
        /// Moves on with every save and removal; see ``RowCache/epoch``.
        var epoch: UInt64 = 1
        /// Snapshots kept by fetches begun at this epoch or earlier may be stale: a snapshot a save
        /// wrote left the cache, or too many IDs were removed to remember each.
        var unseenThrough: UInt64 = 0
        /// IDs removed from the cache, with the epoch they were removed at: a snapshot of one kept
        /// by a fetch begun at that epoch or earlier may be stale. At most `capacity` of them.
        var removed: [ObjectID: UInt64] = [:]
        /// Snapshots a child context's fetch begun at this epoch or earlier kept may no longer be
        /// its parent's answer: a context with children changed an object since.
        var unsavedThrough: UInt64 = 0

        init(capacity: Int) { generationSize = max(1, capacity / 2) }

        func snapshot(for id: ObjectID) -> Snapshot? { newer.rows[id] ?? older.rows[id] }

        /// Forgets the older generation (a snapshot a save wrote that goes with it becomes
        /// unseen); the newer one takes its place.
        mutating func rotate(capacity: Int) {
            unseenThrough = max(unseenThrough, older.clear())
            if capacity < 2 {
                unseenThrough = max(unseenThrough, newer.clear())
            } else {
                swap(&newer, &older)
            }
        }

        /// Caches `snapshot` (unless a newer one is cached); `savedAt` is the epoch of the save
        /// that wrote it, if one did.
        mutating func insert(_ snapshot: Snapshot, savedAt: UInt64?, capacity: Int) {
            let id = snapshot.objectID
            if let cached = newer.rows[id] {
                // One version is one stored state: a snapshot as new as the cached one is
                // the same state, and the cache keeps the one it has.
                if cached.version >= snapshot.version && savedAt == nil { return }
                if cached.version > snapshot.version { return }
            } else {
                if let cached = older.rows[id] {
                    if cached.version > snapshot.version { return }
                    older.rows.removeValue(forKey: id)
                }
                if newer.rows.count >= generationSize { rotate(capacity: capacity) }
            }
            if let savedAt { newer.savedThrough = max(newer.savedThrough, savedAt) }
            newer.rows[id] = snapshot
        }

        /// Removes `ids` and remembers them as removed now; the snapshots removed go to
        /// `released`, to be let go of outside the lock (``RowCache/release(_:)``).
        mutating func remove(_ ids: some Sequence<ObjectID>, capacity: Int, into released: inout [Snapshot]) {
            for id in ids {
                if let snapshot = newer.rows.removeValue(forKey: id) { released.append(snapshot) }
                if let snapshot = older.rows.removeValue(forKey: id) { released.append(snapshot) }
                if removed.count >= capacity {
                    unseenThrough = max(unseenThrough, epoch)
                    removed.removeAll(keepingCapacity: true)
                }
                removed[id] = epoch
            }
        }
    }

    /// An empty cache of at most `capacity` snapshots.
    package init(capacity: Int) {
        self.capacity = capacity
        self.state = Locked(State(capacity: capacity))
    }

    /// The epoch now. A fetch reads it before it reads the store, and tags the snapshots it keeps
    /// in faults with it.
    package var epoch: UInt64 { currentEpoch.load(ordering: .acquiring) }

    /// Whether nothing changed since a fetch that began at `epoch`: its kept snapshots are then
    /// what ``snapshotToFill(_:kept:epoch:throughParent:)`` would answer, for a context and for
    /// a child alike (a change a context with children makes moves the epoch on). Lock-free.
    package func keptSnapshotIsCurrent(epoch: UInt64) -> Bool {
        epoch == currentEpoch.load(ordering: .acquiring)
    }

    /// How many fault fills needed the lock (the epoch had moved on since their fetch); for
    /// tests that pin a fetch-then-read to none.
    package var lockedFillCount: Int { lockedVerdicts.load(ordering: .relaxed) }

    /// The cached snapshot of `id`.
    package func snapshot(for id: ObjectID) -> Snapshot? { state.withLock { $0.snapshot(for: id) } }

    /// Runs `body` with a lookup of cached snapshots, under one hold of the lock: for a caller
    /// that looks up many IDs at once (a save's previous states).
    package func withCachedSnapshots<T>(_ body: ((ObjectID) -> Snapshot?) -> T) -> T {
        state.withLock { state in body { state.snapshot(for: $0) } }
    }

    /// The snapshot to fill a fault of `id` with, which a fetch begun at `epoch` left it
    /// (`kept`): `kept` when nothing changed since; the cached snapshot when it is as new; `kept`
    /// when no change the cache may not show touched `id` since; else `nil` (ask the store).
    ///
    /// `throughParent`: the fault is a child context's, whose parent answered the fetch from the
    /// stores; `nil` too when a context with children changed anything since (ask the parent).
    package func snapshotToFill(_ id: ObjectID, kept: Snapshot, epoch: UInt64, throughParent: Bool = false)
        -> Snapshot?
    {
        if keptSnapshotIsCurrent(epoch: epoch) { return kept }
        lockedVerdicts.add(1, ordering: .relaxed)
        return state.withLock { state in
            if throughParent && epoch <= state.unsavedThrough { return nil }
            if epoch == state.epoch { return kept }
            if let cached = state.snapshot(for: id), cached.version >= kept.version { return cached }
            if let removedAt = state.removed[id], epoch <= removedAt { return nil }
            return epoch > state.unseenThrough ? kept : nil
        }
    }

    /// Caches snapshots read from a store; of more than ``capacity``, only the last ones (the
    /// others would be forgotten before the call returns).
    package func store(_ snapshots: [Snapshot]) {
        state.withLock { state in
            for snapshot in snapshots.suffix(capacity) { state.insert(snapshot, savedAt: nil, capacity: capacity) }
        }
    }

    /// Records a save: forgets `deleted` (remembered as removed), caches `written` (the stored
    /// state of every object the save wrote), and moves the epoch on.
    ///
    /// `omitted`: how many snapshots the save wrote before `written` that the caller left out,
    /// because the cache would forget them before the call returns (a save of more objects than
    /// ``capacity``; see ``savedSnapshotsToCache(of:)``). The cache then forgets everything it
    /// held, as caching them would have, and remembers that snapshots this save wrote are unseen.
    package func recordSave(written: some Sequence<Snapshot>, deleted: some Sequence<ObjectID>, omitted: Int = 0) {
        var released: [Snapshot] = []
        state.withLock { state in
            state.remove(deleted, capacity: capacity, into: &released)
            if omitted > 0 {
                state.rotate(capacity: capacity)
                state.rotate(capacity: capacity)
                state.unseenThrough = max(state.unseenThrough, state.epoch)
            }
            var given = 0
            for snapshot in written {
                state.insert(snapshot, savedAt: state.epoch, capacity: capacity)
                given += 1
            }
            savedSnapshotsGiven.add(given, ordering: .relaxed)
            advance(&state)
        }
        Self.release(consume released)
    }

    /// How many written snapshots saves have given the cache so far; for tests that pin a save
    /// of more objects than ``capacity`` to caching ``capacity`` of them.
    package var savedSnapshotsGivenCount: Int { savedSnapshotsGiven.load(ordering: .relaxed) }

    /// How many of a save's `count` written snapshots to cache: the last ``capacity`` at most;
    /// caching the earlier ones would only have them forgotten by the later ones of the same
    /// save (an insert of 1,000,000 objects through a cache of 50,000 keeps the last 50,000).
    package func savedSnapshotsToCache(of count: Int) -> Int { min(count, capacity) }

    /// Records that a context with children changed an object, or may have (an unsaved change,
    /// a rollback, a reset), and moves the epoch on: the snapshots kept by child contexts'
    /// fetches begun before are no longer trusted (see ``snapshotToFill(_:kept:epoch:throughParent:)``).
    package func recordUnsavedChange() {
        state.withLock { state in
            state.unsavedThrough = state.epoch
            advance(&state)
        }
    }

    /// Forgets `ids` (their stores may hold newer states) and moves the epoch on.
    package func remove(_ ids: some Sequence<ObjectID>) {
        var released: [Snapshot] = []
        state.withLock { state in
            state.remove(ids, capacity: capacity, into: &released)
            advance(&state)
        }
        Self.release(consume released)
    }

    /// From how many removed snapshots on ``release(_:)`` frees them on a background queue.
    static let backgroundReleaseCount = 1_000

    /// Lets go of snapshots removed from the cache (nothing reads them any more): on the
    /// caller's thread when few, else on a background queue, so that the caller of a removal of
    /// many (a batch delete of 10,000 objects) does not wait for their memory to be freed.
    private static func release(_ snapshots: consuming [Snapshot]) {
        guard snapshots.count >= backgroundReleaseCount else { return }
        let held = consume snapshots
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(held) {} }
    }

    /// Forgets every snapshot whose ID `shouldRemove` accepts, and every snapshot kept by the
    /// fetches so far, and moves the epoch on. O(n) in the cached snapshots.
    package func removeAll(where shouldRemove: (ObjectID) -> Bool) {
        state.withLock { state in
            state.newer.rows = state.newer.rows.filter { !shouldRemove($0.key) }
            state.older.rows = state.older.rows.filter { !shouldRemove($0.key) }
            state.unseenThrough = state.epoch
            advance(&state)
        }
    }

    /// Moves the epoch on, under the lock, and publishes it to ``currentEpoch``.
    private func advance(_ state: inout State) {
        state.epoch += 1
        currentEpoch.store(state.epoch, ordering: .releasing)
    }

    /// How many snapshots it holds.
    package var count: Int { state.withLock { $0.newer.rows.count + $0.older.rows.count } }
}
