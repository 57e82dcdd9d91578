import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The store-wide lock every process takes: shared while it has a store open, exclusive while it
/// migrates, replaces or deletes the store.
///
/// A migration rewrites a store's schema and rows; a process that kept writing rows of the old
/// shape during it would corrupt the store. So every open takes this lock shared, for as long as
/// the store stays open, and a migration, `copy --replace` or a deletion takes it exclusive: it
/// waits up to a timeout for every other process to close the store, then fails with
/// ``StrataError/Code/storeBusy`` and changes nothing. Opens wait the same way while a migration
/// runs.
///
/// The lock is an advisory `flock` on a file beside the store, `PATH.strata-lock`, where `PATH` is
/// the store's real path (symbolic links and `..` resolved), so every spelling of one store locks
/// one file. The file is created 0600 and never deleted (deleting a lock file lets two processes
/// lock two different inodes). On read-only media, where it cannot be created, a shared lock is
/// skipped: nothing can write there.
///
/// Within a process, `flock` cannot tell one holder from another, so this type keeps one file
/// descriptor per store and counts its holders: shared holders share it, and the thread holding
/// the exclusive lock may open the store again (a migration opens the store it migrates) while
/// every other thread waits.
public final class StoreAccessLock: @unchecked Sendable {
    /// How a holder uses the store.
    public enum Mode: Sendable {
        /// The store is open for use: any number of processes at once.
        case shared
        /// The store is being migrated, replaced or deleted: no other process has it open.
        case exclusive
    }

    /// How long an open or a migration waits for the lock by default.
    public static let defaultTimeoutMilliseconds = 5_000

    /// The lock file of the store whose real path is `storePath`.
    public static func lockFilePath(forStoreAt storePath: String) -> String {
        storePath + ".strata-lock"
    }

    /// The real path of `path`: symbolic links, `.` and `..` resolved; for a path that does not
    /// exist yet, its parent's real path and its own name. Relative paths are taken from the
    /// working directory.
    public static func realPath(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        if let resolved = realpath(absolute, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let url = URL(fileURLWithPath: absolute)
        let parent = url.deletingLastPathComponent().path
        guard parent != absolute, !parent.isEmpty else { return absolute }
        let name = url.lastPathComponent
        let resolvedParent = realPath(parent)
        return resolvedParent == "/" ? "/" + name : resolvedParent + "/" + name
    }

    private let entry: Entry
    private let mode: Mode
    private let nested: Bool
    private let released = Locked(false)

    private init(entry: Entry, mode: Mode, nested: Bool) {
        self.entry = entry
        self.mode = mode
        self.nested = nested
    }

    deinit { release() }

    /// Takes the lock of the store at `storePath` in `mode`, waiting up to `timeoutMilliseconds`.
    ///
    /// - Parameters:
    ///   - storePath: the store's file or directory, in any spelling.
    ///   - url: the store's URL, for messages.
    /// - Returns: the held lock, released by ``release()`` or when it is deallocated; `nil` for
    ///   a shared lock on read-only media, where the lock file cannot be created.
    /// - Throws: ``StrataError/Code/storeBusy`` when another process (or another thread of this
    ///   one) holds the lock in a conflicting mode for the whole wait; ``StrataError/Code/readOnly``
    ///   or ``StrataError/Code/io`` when an exclusive lock's file cannot be created.
    public static func acquire(
        _ mode: Mode, forStoreAt storePath: String, url: StoreURL,
        timeoutMilliseconds: Int = defaultTimeoutMilliseconds
    ) throws -> StoreAccessLock? {
        let lockPath = lockFilePath(forStoreAt: realPath(storePath))
        guard let entry = try Table.shared.entry(for: lockPath, url: url, mode: mode) else { return nil }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeoutMilliseconds)) * 1_000_000
        var pause: UInt32 = 1_000
        while true {
            switch entry.tryAcquire(mode) {
            case .acquired(let nested):
                return StoreAccessLock(entry: entry, mode: mode, nested: nested)
            case .busy(let holder):
                if DispatchTime.now().uptimeNanoseconds >= deadline {
                    Table.shared.forget(entry)
                    let what = mode == .shared ? "open" : "migrate, replace or delete"
                    throw StrataError(
                        .storeBusy,
                        "cannot \(what) the store \(url): \(holder) (waited \(timeoutMilliseconds) ms)",
                        location: ["url": url.description, "lockFile": lockPath]
                    )
                }
                usleep(pause)
                pause = min(pause * 2, 50_000)
            case .failed(let error):
                Table.shared.forget(entry)
                throw error
            }
        }
    }

    /// Releases the lock (once; later calls do nothing).
    public func release() {
        let first = released.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        entry.release(mode, nested: nested)
        Table.shared.forget(entry)
    }

    /// What a try at the lock found.
    private enum Attempt {
        case acquired(nested: Bool)
        case busy(String)
        case failed(StrataError)
    }

    /// One lock file, opened once per process, and its holders in this process.
    private final class Entry: @unchecked Sendable {
        let path: String
        let descriptor: Int32
        /// Guarded by `state`.
        private struct State {
            var users = 0
            var shared = 0
            var exclusiveOwner: pthread_t?
            var exclusiveDepth = 0
            var nestedShared = 0
        }
        private let state = Locked(State())

        init(path: String, descriptor: Int32) {
            self.path = path
            self.descriptor = descriptor
        }

        deinit { close(descriptor) }

        /// Counts a caller that will try to acquire; `forget` undoes it.
        func retain() { state.withLock { $0.users += 1 } }

        /// Drops a caller; returns whether none is left.
        func drop() -> Bool { state.withLock { $0.users -= 1; return $0.users == 0 } }

        func tryAcquire(_ mode: Mode) -> Attempt {
            state.withLock { state in
                let me = pthread_self()
                if let owner = state.exclusiveOwner {
                    guard pthread_equal(owner, me) != 0 else {
                        return .busy("another thread of this process is migrating, replacing or deleting it")
                    }
                    switch mode {
                    case .shared: state.nestedShared += 1
                    case .exclusive: state.exclusiveDepth += 1
                    }
                    return .acquired(nested: true)
                }
                switch mode {
                case .shared:
                    if state.shared == 0 {
                        if let busy = lock(LOCK_SH, busy: "another process is migrating, replacing or deleting it") { return busy }
                    }
                    state.shared += 1
                    return .acquired(nested: false)
                case .exclusive:
                    guard state.shared == 0 else { return .busy("it is open in this process") }
                    if let busy = lock(LOCK_EX, busy: "another process has it open") { return busy }
                    state.exclusiveOwner = me
                    state.exclusiveDepth = 1
                    return .acquired(nested: false)
                }
            }
        }

        /// `nil` when `flock` took the lock; otherwise why not.
        private func lock(_ operation: Int32, busy: String) -> Attempt? {
            while flock(descriptor, operation | LOCK_NB) != 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EWOULDBLOCK { return .busy(busy) }
                return .failed(StrataError(.io, "cannot lock '\(path)': \(String(cString: strerror(code)))", location: ["path": path], underlying: String(cString: strerror(code))))
            }
            return nil
        }

        func release(_ mode: Mode, nested: Bool) {
            state.withLock { state in
                // A shared hold taken under this process's exclusive lock and outliving it was
                // turned into an ordinary shared hold when the exclusive lock was released.
                if nested && (mode == .exclusive || state.exclusiveOwner != nil) {
                    switch mode {
                    case .shared: state.nestedShared -= 1
                    case .exclusive: state.exclusiveDepth -= 1
                    }
                    return
                }
                switch mode {
                case .shared:
                    state.shared -= 1
                    if state.shared == 0 { _ = flock(descriptor, LOCK_UN) }
                case .exclusive:
                    state.exclusiveOwner = nil
                    state.exclusiveDepth = 0
                    if state.nestedShared > 0 {
                        // Stores the exclusive holder opened and left open keep a shared lock.
                        state.shared = state.nestedShared
                        state.nestedShared = 0
                        _ = flock(descriptor, LOCK_SH)
                    } else {
                        _ = flock(descriptor, LOCK_UN)
                    }
                }
            }
        }
    }

    /// The process's open lock files, by path.
    private final class Table: @unchecked Sendable {
        static let shared = Table()
        private let entries = Locked<[String: Entry]>([:])

        /// The entry of `path`, opened (and the file created) when this process has none;
        /// `nil` when a shared lock's file cannot be created on read-only media.
        func entry(for path: String, url: StoreURL, mode: Mode) throws -> Entry? {
            try entries.withLock { entries in
                if let entry = entries[path] {
                    entry.retain()
                    return entry
                }
                var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
                if descriptor < 0 {
                    let code = errno
                    if code == EROFS || code == EACCES || code == EPERM {
                        descriptor = open(path, O_RDONLY | O_CLOEXEC)
                        if descriptor < 0 && mode == .shared { return nil }
                    }
                    if descriptor < 0 {
                        let text = String(cString: strerror(code))
                        let strataCode: StrataError.Code = (code == EROFS || code == EACCES || code == EPERM) ? .readOnly : .io
                        throw StrataError(strataCode, "cannot create the lock file '\(path)' of the store \(url): \(text)", location: ["url": url.description, "lockFile": path], underlying: text)
                    }
                }
                let entry = Entry(path: path, descriptor: descriptor)
                entry.retain()
                entries[path] = entry
                return entry
            }
        }

        /// Drops one user of `entry`, closing its file when none is left.
        func forget(_ entry: Entry) {
            entries.withLock { entries in
                if entry.drop() { entries[entry.path] = nil }
            }
        }
    }
}
