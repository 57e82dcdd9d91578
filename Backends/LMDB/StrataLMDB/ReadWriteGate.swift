import CStrataLMDB

/// A reader-writer lock (POSIX `pthread_rwlock_t`) guarding the memory map.
///
/// Every transaction holds it shared; only growing or re-adopting the map size and closing the
/// environment take it exclusively, because LMDB requires that no transaction of the process is
/// active while the map is remapped. Readers therefore never wait for a save, only for a remap.
final class ReadWriteGate: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// Takes the lock shared.
    @inline(__always) func lockShared() { pthread_rwlock_rdlock(lock) }
    /// Takes the lock exclusively.
    @inline(__always) func lockExclusive() { pthread_rwlock_wrlock(lock) }
    /// Releases the lock (shared or exclusive).
    @inline(__always) func unlock() { pthread_rwlock_unlock(lock) }
}
