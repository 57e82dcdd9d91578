import Foundation
import StrataCore

/// What identifies one version of a file on disk: a save replaces the file (a new inode) and
/// changes its modification time, so a different identity means another writer saved.
struct XMLFileIdentity: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int64
    var modifiedNanoseconds: Int64

    /// The identity of the file at `path`, or `nil` when there is none.
    static func of(path: String) -> XMLFileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return XMLFileIdentity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modifiedSeconds: Int64(info.modificationTime.tv_sec),
            modifiedNanoseconds: Int64(info.modificationTime.tv_nsec))
    }
}

/// Crash-safe replacement of a whole file.
enum XMLAtomicFile {
    /// Writes a new version of `path`: `body` writes into a new temporary file in the same
    /// directory (mode 0600, or the mode of the file it replaces), which is fsynced, renamed over
    /// `path`, and the directory fsynced. A crash at any moment leaves the old file or the new one,
    /// whole; at worst a stray temporary file (`.NAME.tmp-…`) remains, which opening ignores.
    /// While the rename is made durable, the replaced version keeps a second name
    /// (`.NAME.tmp-….previous`): when syncing the directory fails, it is renamed back, so a failed
    /// save leaves the previous version in place (a new file is removed).
    ///
    /// `beforeRename` runs after the temporary file is synced and before the rename (a test hook).
    static func replace(
        _ path: String, beforeRename: (() throws -> Void)? = nil, body: (Int32, String) throws -> Void
    ) throws -> XMLFileIdentity {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        ).path
        var existing = stat()
        let existed = stat(path, &existing) == 0
        let mode: mode_t = existed ? existing.st_mode & 0o777 : 0o600

        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw ioError("cannot create the temporary file \(temporary)", path: temporary) }
        var renamed = false
        var closed = false
        defer {
            if !closed { close(fd) }
            if !renamed { unlink(temporary) }
        }
        _ = fchmod(fd, mode)
        try body(fd, temporary)
        guard injectable(.syncFile, temporary, fsync(fd)) == 0 else {
            throw ioError("cannot sync \(temporary) to disk", path: temporary)
        }
        closed = true
        guard close(fd) == 0 else { throw ioError("cannot close \(temporary)", path: temporary) }
        try beforeRename?()
        // A second name for the version being replaced, so that a failed directory sync can put
        // it back: the save then fails with the previous version in place, as every other
        // failure leaves it.
        let previous = temporary + ".previous"
        let keptPrevious = link(path, previous) == 0
        defer { if keptPrevious { unlink(previous) } }
        guard injectable(.rename, path, rename(temporary, path)) == 0 else {
            throw ioError("cannot rename \(temporary) to \(path)", path: path)
        }
        renamed = true
        do {
            try syncDirectory(directory)
        } catch {
            if keptPrevious {
                _ = rename(previous, path)
            } else if existed {
                throw StrataError(
                    .io,
                    "cannot sync the directory of \(path) after replacing it, and the previous version could not be kept: the file holds the new version, which may not survive a power loss",
                    location: ["path": path], underlying: (error as? StrataError)?.underlying)
            } else {
                _ = unlink(path)
            }
            try? syncDirectory(directory)
            throw error
        }
        guard let identity = XMLFileIdentity.of(path: path) else {
            throw ioError("cannot stat \(path) after saving it", path: path)
        }
        return identity
    }

    /// fsyncs a directory, so a rename in it is durable.
    static func syncDirectory(_ directory: String) throws {
        let dfd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { throw ioError("cannot open the directory \(directory) to sync it", path: directory) }
        defer { close(dfd) }
        guard injectable(.syncDirectory, directory + "/.", fsync(dfd)) == 0 else {
            throw ioError("cannot sync the directory \(directory)", path: directory)
        }
    }

    /// `result` of a system call, or -1 with `errno` set when ``XMLFileFaults`` injects a fault
    /// for it (the call is then not made).
    static func injectable(_ operation: XMLFileFaults.Operation, _ path: String, _ call: @autoclosure () -> Int32)
        -> Int32
    {
        if let fault = XMLFileFaults.due(operation, path: path) {
            errno = fault.errorNumber
            return -1
        }
        return call()
    }

    /// An ``StrataError/Code/io`` error (or ``StrataError/Code/readOnly`` for a read-only file
    /// system or a permission problem) with the current `errno`.
    static func ioError(_ message: String, path: String) -> StrataError {
        let code = errno
        let kind: StrataError.Code = (code == EROFS || code == EACCES || code == EPERM) ? .readOnly : .io
        return StrataError(kind, message, location: ["path": path], underlying: String(cString: strerror(code)))
    }
}

extension XMLAtomicFile {
    /// Removes the temporary files (`.NAME.tmp-PID-…`, and their `.previous` links) that writers
    /// killed on this machine left beside `path`: those whose process no longer exists. Files of
    /// live processes (a save in progress, this process's included) are left alone. Called when
    /// a store is opened for writing, holding the writer lock, so that a store whose writers are
    /// killed again and again does not fill its directory.
    ///
    /// - Returns: how many files were removed.
    @discardableResult
    static func removeStrayTemporaries(of path: String) -> Int {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let prefix = ".\(url.lastPathComponent).tmp-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid > 0, pid != getpid() else {
                continue
            }
            guard kill(pid, 0) == -1, errno == ESRCH else { continue }
            if unlink(directory + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }
}

/// The advisory lock that makes one process at a time the writer of an XML store: `flock` on
/// `NAME.lock` beside the store (created 0600, never deleted, so every process locks the same inode).
final class XMLFileLock: @unchecked Sendable {
    let path: String
    private let fd: Int32

    /// Opens (creating) the lock file.
    init(storePath: String) throws {
        path = storePath + ".lock"
        fd = try XMLStorePath.openRegularFile(path, flags: O_RDWR | O_CREAT, role: "lock file")
    }

    deinit { close(fd) }

    /// Takes the lock, waiting up to `timeoutMilliseconds` (0: do not wait).
    ///
    /// - Throws: ``StrataError/Code/storeBusy`` when another process holds it that long.
    func lock(timeoutMilliseconds: Int, storePath: String) throws {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeoutMilliseconds)) * 1_000_000
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return }
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK else { throw XMLAtomicFile.ioError("cannot lock \(path)", path: path) }
            if DispatchTime.now().uptimeNanoseconds >= deadline {
                throw StrataError(
                    .storeBusy,
                    "another process is saving the XML store \(storePath) (it holds the lock \(path))"
                        + (timeoutMilliseconds > 0
                            ? "; waited \(timeoutMilliseconds) ms" : "; set the option lockTimeout (ms) to wait"),
                    location: ["path": storePath, "lock": path])
            }
            usleep(2_000)
        }
    }

    /// Releases the lock.
    func unlock() { _ = flock(fd, LOCK_UN) }
}
