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
/// one file. The file is created with the store file's permission bits (0600 for a new store),
/// and widened to them whenever its owner opens the store after they changed, so that every user
/// who may write the store may lock it; it is never followed as a symbolic link. It is removed
/// only with its store, by the holder of the exclusive lock (``removeFileOfDeletedStore()``): a
/// process that opened the file before that finds it gone once it gets the lock, and locks the
/// new one. A read-only open that can neither create nor open it (read-only media, another
/// user's 0600 file) reads without it; a writing one fails.
///
/// Within a process, `flock` cannot tell one holder from another, so this type keeps one file
/// descriptor per lock file (by device and inode, so a bind mount shares it too) and counts its
/// holders: shared holders share it, and the thread holding the exclusive lock may open the store
/// again (a migration opens the store it migrates) while every other thread waits.
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

    /// The lock file's entry; `nil` for a lock held elsewhere.
    private let entry: Entry?
    private let mode: Mode
    private let nested: Bool
    /// What releases a lock held elsewhere.
    private let releaseHeldElsewhere: (@Sendable () -> Void)?
    private let released = Locked(false)

    private init(entry: Entry, mode: Mode, nested: Bool) {
        self.entry = entry
        self.mode = mode
        self.nested = nested
        releaseHeldElsewhere = nil
    }

    /// An exclusive lock held by other means than a lock file (a database server's advisory
    /// lock, for a store on that server), which `release` gives up: a backend's
    /// ``StoreBackend/lockForMigration(of:timeoutMilliseconds:)`` returns it. `release` runs once,
    /// from ``release()`` or when the lock is deallocated.
    public init(heldElsewhere release: @escaping @Sendable () -> Void) {
        entry = nil
        mode = .exclusive
        nested = false
        releaseHeldElsewhere = release
    }

    deinit { release() }

    /// Takes the lock of the store at `storePath` in `mode`, waiting up to `timeoutMilliseconds`.
    ///
    /// - Parameters:
    ///   - storePath: the store's file or directory, in any spelling.
    ///   - url: the store's URL, for messages.
    ///   - readOnly: the caller only reads: where the lock file can be neither created nor
    ///     opened, it reads without the lock.
    /// - Returns: the held lock, released by ``release()`` or when it is deallocated; `nil` for
    ///   a read-only shared lock whose file cannot be had.
    /// - Throws: ``StrataError/Code/storeBusy`` when another process (or another thread of this
    ///   one) holds the lock in a conflicting mode for the whole wait; ``StrataError/Code/readOnly``
    ///   or ``StrataError/Code/io`` when the lock file cannot be created or opened.
    public static func acquire(
        _ mode: Mode, forStoreAt storePath: String, url: StoreURL,
        timeoutMilliseconds: Int = defaultTimeoutMilliseconds, readOnly: Bool = false
    ) throws -> StoreAccessLock? {
        let real = realPath(storePath)
        let lockPath = lockFilePath(forStoreAt: real)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeoutMilliseconds)) * 1_000_000
        var pause: UInt32 = 1_000
        let me = ThreadIdentity.current
        guard
            var entry = try Table.shared.entry(
                for: lockPath, storePath: real, url: url, skipWhenUnavailable: mode == .shared && readOnly)
        else {
            return nil
        }
        while true {
            switch entry.tryAcquire(mode, thread: me) {
            case .stale:
                // The file was removed (with its store) while this process waited: lock the new one.
                Table.shared.retire(entry)
                Table.shared.forget(entry)
                guard
                    let fresh = try Table.shared.entry(
                        for: lockPath, storePath: real, url: url, skipWhenUnavailable: mode == .shared && readOnly)
                else {
                    return nil
                }
                entry = fresh
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
        guard let entry else {
            releaseHeldElsewhere?()
            return
        }
        entry.release(mode, nested: nested)
        Table.shared.forget(entry)
    }

    /// Removes the lock file, for a store this holder has just deleted: only the outermost
    /// exclusive holder does (a copy that replaces a store keeps the lock, and its file, while it
    /// deletes and fills the store). A process that opened the file before it was removed finds
    /// it gone once it gets the lock, and locks a new file.
    public func removeFileOfDeletedStore() {
        guard let entry, mode == .exclusive, !nested, released.withLock({ !$0 }) else { return }
        if entry.removeFileIfOutermostExclusive() { Table.shared.retire(entry) }
    }

    /// What a try at the lock found.
    private enum Attempt {
        case acquired(nested: Bool)
        case busy(String)
        /// The file was removed or replaced since it was opened.
        case stale
        case failed(StrataError)
    }

    /// A number no other thread of the process has had: `pthread_t` values are reused once a
    /// thread ends, so they cannot tell the exclusive holder from a later thread.
    private enum ThreadIdentity {
        private static let next = Locked<UInt64>(0)
        private static let key = "org.strata.StoreAccessLock.thread"

        static var current: UInt64 {
            let dictionary = Thread.current.threadDictionary
            if let id = dictionary[key] as? UInt64 { return id }
            let id = next.withLock { value -> UInt64 in
                value += 1
                return value
            }
            dictionary[key] = id
            return id
        }
    }

    /// One lock file, opened once per process, and its holders in this process.
    private final class Entry: @unchecked Sendable {
        /// The lock file's device and inode.
        let key: FileKey
        let path: String
        let descriptor: Int32
        /// Guarded by `state`.
        private struct State {
            var users = 0
            var shared = 0
            var exclusiveOwner: UInt64?
            /// Exclusive holds of the owner thread, outer and nested alike.
            var exclusiveDepth = 0
            /// Shared holds the owner thread took under its exclusive lock.
            var nestedShared = 0
        }
        private let state = Locked(State())

        init(key: FileKey, path: String, descriptor: Int32) {
            self.key = key
            self.path = path
            self.descriptor = descriptor
        }

        deinit { close(descriptor) }

        /// Counts a caller that will try to acquire; `drop` undoes it.
        func retain() { state.withLock { $0.users += 1 } }

        /// Drops a caller; returns whether none is left.
        func drop() -> Bool {
            state.withLock {
                $0.users -= 1
                return $0.users == 0
            }
        }

        func tryAcquire(_ mode: Mode, thread: UInt64) -> Attempt {
            state.withLock { state in
                if let owner = state.exclusiveOwner {
                    guard owner == thread else {
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
                        if let busy = lock(LOCK_SH, busy: "another process is migrating, replacing or deleting it") {
                            return busy
                        }
                        guard isCurrent() else {
                            _ = flock(descriptor, LOCK_UN)
                            return .stale
                        }
                    }
                    state.shared += 1
                    return .acquired(nested: false)
                case .exclusive:
                    guard state.shared == 0 else { return .busy("it is open in this process") }
                    if let busy = lock(LOCK_EX, busy: "another process has it open") { return busy }
                    guard isCurrent() else {
                        _ = flock(descriptor, LOCK_UN)
                        return .stale
                    }
                    state.exclusiveOwner = thread
                    state.exclusiveDepth = 1
                    return .acquired(nested: false)
                }
            }
        }

        /// Whether the lock file's path still leads to this entry's file.
        private func isCurrent() -> Bool {
            var info = stat()
            return lstat(path, &info) == 0 && UInt64(info.st_dev) == key.device && UInt64(info.st_ino) == key.inode
        }

        /// Unlinks the lock file when the caller holds the only exclusive hold; returns whether
        /// it did.
        func removeFileIfOutermostExclusive() -> Bool {
            state.withLock { state in
                guard state.exclusiveDepth == 1, state.nestedShared == 0, isCurrent() else { return false }
                return unlink(path) == 0
            }
        }

        /// `nil` when `flock` took the lock; otherwise why not.
        private func lock(_ operation: Int32, busy: String) -> Attempt? {
            while flock(descriptor, operation | LOCK_NB) != 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EWOULDBLOCK { return .busy(busy) }
                let text = String(cString: strerror(code))
                return .failed(
                    StrataError(.io, "cannot lock '\(path)': \(text)", location: ["path": path], underlying: text))
            }
            return nil
        }

        func release(_ mode: Mode, nested: Bool) {
            state.withLock { state in
                switch mode {
                case .exclusive:
                    state.exclusiveDepth -= 1
                    guard state.exclusiveDepth == 0 else { return }
                    state.exclusiveOwner = nil
                    if state.nestedShared > 0 {
                        // Stores the exclusive holder opened and left open keep a shared lock.
                        state.shared += state.nestedShared
                        state.nestedShared = 0
                        while flock(descriptor, LOCK_SH) != 0 && errno == EINTR {}
                    } else {
                        _ = flock(descriptor, LOCK_UN)
                    }
                case .shared:
                    // A shared hold taken under this process's exclusive lock and outliving it
                    // became an ordinary shared hold when the exclusive lock was released.
                    if nested && state.exclusiveOwner != nil {
                        state.nestedShared -= 1
                        return
                    }
                    state.shared -= 1
                    if state.shared == 0 && state.exclusiveOwner == nil { _ = flock(descriptor, LOCK_UN) }
                }
            }
        }
    }

    /// A file's device and inode.
    private struct FileKey: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// The process's open lock files, by device and inode.
    private final class Table: @unchecked Sendable {
        static let shared = Table()
        private let entries = Locked<[FileKey: Entry]>([:])

        /// The entry of the lock file at `path`, opened (and the file created) when this process
        /// has none; `nil` when `skipWhenUnavailable` and the file can be neither created nor
        /// opened.
        func entry(for path: String, storePath: String, url: StoreURL, skipWhenUnavailable: Bool) throws -> Entry? {
            guard
                let descriptor = try Self.openLockFile(
                    path, storePath: storePath, url: url, skipWhenUnavailable: skipWhenUnavailable)
            else { return nil }
            var info = stat()
            guard fstat(descriptor, &info) == 0 else {
                let text = String(cString: strerror(errno))
                close(descriptor)
                throw StrataError(
                    .io, "cannot examine the lock file '\(path)' of the store \(url): \(text)",
                    location: ["url": url.description, "lockFile": path], underlying: text)
            }
            let key = FileKey(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            return entries.withLock { entries in
                if let entry = entries[key] {
                    close(descriptor)
                    entry.retain()
                    return entry
                }
                let entry = Entry(key: key, path: path, descriptor: descriptor)
                entry.retain()
                entries[key] = entry
                return entry
            }
        }

        /// Opens the lock file, never through a symbolic link, creating it with the permission
        /// bits of the store file (0600 when there is none yet).
        private static func openLockFile(_ path: String, storePath: String, url: StoreURL, skipWhenUnavailable: Bool)
            throws -> Int32?
        {
            var storeInfo = stat()
            let mode =
                stat(storePath, &storeInfo) == 0 && (storeInfo.st_mode & S_IFMT) == S_IFREG
                ? storeInfo.st_mode & 0o666 : 0o600
            var descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if descriptor >= 0 {
                _ = fchmod(descriptor, mode)
                return descriptor
            }
            var code = errno
            if code == EEXIST {
                descriptor = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
                if descriptor < 0 && (errno == EACCES || errno == EROFS || errno == EPERM) {
                    descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
                }
                if descriptor >= 0 {
                    // A lock file made before the store's permissions were widened: widen it too
                    // (its owner can), so every user who may write the store may lock it.
                    var lockInfo = stat()
                    if fstat(descriptor, &lockInfo) == 0 && lockInfo.st_mode & mode != mode {
                        _ = fchmod(descriptor, (lockInfo.st_mode & 0o7777) | mode)
                    }
                    return descriptor
                }
                code = errno
            }
            if skipWhenUnavailable && (code == EACCES || code == EROFS || code == EPERM) { return nil }
            let text = String(cString: strerror(code))
            let strataCode: StrataError.Code = (code == EACCES || code == EROFS || code == EPERM) ? .readOnly : .io
            let verb = code == ELOOP ? "use (it is a symbolic link)" : (access(path, F_OK) == 0 ? "open" : "create")
            throw StrataError(
                strataCode, "cannot \(verb) the lock file '\(path)' of the store \(url): \(text)",
                location: ["url": url.description, "path": storePath, "lockFile": path], underlying: text)
        }

        /// Drops one user of `entry`, closing its file when none is left.
        func forget(_ entry: Entry) {
            entries.withLock { entries in
                if entry.drop(), entries[entry.key] === entry { entries[entry.key] = nil }
            }
        }

        /// Stops handing out `entry`, whose file was removed: its users keep it until they drop
        /// it, and the next caller opens the path anew (a new file may even reuse its inode).
        func retire(_ entry: Entry) {
            entries.withLock { entries in
                if entries[entry.key] === entry { entries[entry.key] = nil }
            }
        }
    }
}
