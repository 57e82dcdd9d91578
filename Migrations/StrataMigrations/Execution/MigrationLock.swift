import Foundation
import StrataCore

/// Makes one streaming migration at a time the owner of a store and its staging copy.
///
/// A file store is locked with an exclusive `flock` on `.NAME.strata-migration.lock` beside it,
/// taken without waiting: a second migration of the same store, in this process or another,
/// fails at once with ``StrataError/Code/storeBusy`` instead of deleting and rebuilding the
/// staging copy the first one is writing, or swapping in a copy it did not build. The lock file is
/// removed when the migration ends; a lock taken on a file that was removed meanwhile is taken
/// again on the new one, so two migrations never hold two different files. A `memory:` store is
/// locked by name within the process (it lives in no other).
///
/// The name does not start with the staging copy's name (`.NAME.strata-migrating`), so removing
/// the staging copy and its companions never removes the lock.
final class MigrationLock {
    /// The lock file, or `nil` for a `memory:` store.
    let path: String?
    private let fd: Int32
    private let memoryName: String?

    /// The names of the `memory:` stores this process is migrating.
    private static let migratingMemoryStores = Locked<Set<String>>([])

    /// Takes the lock of the store at `url` (a `memory:` store, or a store that is one file at a
    /// real, resolved path).
    ///
    /// - Throws: ``StrataError/Code/storeBusy`` when another migration holds it,
    ///   ``StrataError/Code/io`` when the lock file cannot be opened or locked.
    init(for url: StoreURL) throws {
        if url.scheme == "memory" {
            let name = url.location
            let taken = Self.migratingMemoryStores.withLock { $0.insert(name).inserted }
            guard taken else { throw Self.busy(url, lock: nil) }
            path = nil
            fd = -1
            memoryName = name
            return
        }
        let file = URL(fileURLWithPath: url.location)
        let lockPath = file.deletingLastPathComponent().appendingPathComponent(
            ".\(file.lastPathComponent).strata-migration.lock"
        ).path
        path = lockPath
        memoryName = nil
        while true {
            let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
            guard fd >= 0 else {
                throw Self.ioError("cannot open the migration lock \(lockPath)", url: url, lock: lockPath)
            }
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                close(fd)
                throw StrataError(
                    .io, "the migration lock \(lockPath) is not a regular file",
                    location: ["url": url.description, "lock": lockPath])
            }
            var result: Int32
            repeat { result = flock(fd, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
            if result != 0 {
                let code = errno
                close(fd)
                if code == EWOULDBLOCK { throw Self.busy(url, lock: lockPath) }
                errno = code
                throw Self.ioError("cannot lock the migration lock \(lockPath)", url: url, lock: lockPath)
            }
            // The migration that held it may have removed the file after this one opened it:
            // then the lock is on a name nobody else will open, so take it on the current file.
            var current = stat()
            if stat(lockPath, &current) == 0, current.st_dev == info.st_dev, current.st_ino == info.st_ino {
                self.fd = fd
                return
            }
            close(fd)
        }
    }

    deinit { release() }

    private var released = false

    /// Removes the lock file (while still holding it) and releases the lock. Harmless twice.
    func release() {
        guard !released else { return }
        released = true
        if let memoryName {
            _ = Self.migratingMemoryStores.withLock { $0.remove(memoryName) }
            return
        }
        if let path { unlink(path) }
        close(fd)
    }

    private static func busy(_ url: StoreURL, lock: String?) -> StrataError {
        var location = ["url": url.description]
        if let lock { location["lock"] = lock }
        return StrataError(
            .storeBusy,
            "another migration of \(url) is running" + (lock.map { " (it holds \($0))" } ?? "")
                + "; nothing was changed: run the migration again once it has finished", location: location)
    }

    private static func ioError(_ message: String, url: StoreURL, lock: String) -> StrataError {
        let code = errno
        return StrataError(
            .io, message, location: ["url": url.description, "lock": lock], underlying: String(cString: strerror(code)))
    }
}
