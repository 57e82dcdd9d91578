import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Checks the directory of an LMDB store before LMDB touches it, so that every problem is
/// reported with the path and the operating system's cause, and nothing at the path (a FIFO
/// where a file is expected, say) can make liblmdb block or crash.
enum LMDBDirectory {
    /// What is at a location.
    enum State {
        case missing
        /// Something that is not a directory: ``kind(of:)`` names it.
        case notDirectory(kind: String)
        /// A directory holding nothing but, perhaps, a lock file and abandoned creations.
        case emptyDirectory
        case environment
        case foreignDirectory(entries: Int)
    }

    /// The data file of an environment.
    static func dataFile(_ path: String) -> String { path + "/data.mdb" }
    /// The lock file of an environment.
    static func lockFile(_ path: String) -> String { path + "/lock.mdb" }

    /// The path of `url`, or ``StrataError/Code/invalidStoreURL`` when it is empty.
    static func path(of url: StoreURL) throws -> String {
        let path = try url.plainLocation(for: "the LMDB store", acceptingQueryOptions: true)
        guard !path.isEmpty else {
            throw StrataError(
                .invalidStoreURL, "'\(url)' names no directory; write lmdb:/path/to/store",
                location: ["url": url.description])
        }
        return path
    }

    /// What is at `path`. Only `stat` and a directory listing are used, which never block, so a
    /// FIFO, socket or device at the path or in place of `data.mdb` or `lock.mdb` is found here,
    /// before anything opens it: a FIFO in place of the directory is ``State/notDirectory(kind:)``,
    /// one in place of a file of the environment throws ``StrataError/Code/storeCorrupt``.
    static func state(_ path: String) throws -> State {
        var info = stat()
        if stat(path, &info) != 0 {
            let error = errno
            if error == ENOENT { return .missing }
            throw failure(path, errno: error, doing: "examining")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return .notDirectory(kind: kind(of: info.st_mode)) }
        let hasData = try requireRegularFileIfPresent(dataFile(path), environment: path)
        _ = try requireRegularFileIfPresent(lockFile(path), environment: path)
        if hasData { return .environment }
        guard let dir = opendir(path) else { throw failure(path, errno: errno, doing: "listing") }
        defer { closedir(dir) }
        var entries = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." || name == "lock.mdb" || name.hasPrefix(LMDBStoreCreation.insidePrefix) {
                continue
            }
            entries += 1
        }
        return entries == 0 ? .emptyDirectory : .foreignDirectory(entries: entries)
    }

    /// Whether `file` exists; throws ``StrataError/Code/storeCorrupt`` when it is not a regular
    /// file (liblmdb would open a FIFO and wait for a writer for ever, or map a device).
    private static func requireRegularFileIfPresent(_ file: String, environment path: String) throws -> Bool {
        var info = stat()
        if stat(file, &info) != 0 {
            if errno == ENOENT { return false }
            throw failure(file, errno: errno, doing: "examining")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw StrataError(
                .storeCorrupt,
                "\(path) is not a usable LMDB environment: \(file) is \(kind(of: info.st_mode)), not a regular file; nothing was opened",
                location: ["path": path, "file": file, "kind": kind(of: info.st_mode)])
        }
        return true
    }

    /// A reader's name for the kind of file `mode` describes ("a FIFO (named pipe)").
    static func kind(of mode: mode_t) -> String { FileKind.phrase(of: mode) }

    /// Checks what `state(path)` found for an open with `options`: throws for anything that is
    /// not an environment or a place to create one (or that the process may not use), and
    /// ``StrataError/Code/storeNotFound`` when there is no store and creation is not allowed.
    static func check(_ state: State, at path: String, options: LMDBOptions) throws {
        switch state {
        case .environment:
            if access(dataFile(path), R_OK) != 0 { throw failure(dataFile(path), errno: errno, doing: "reading") }
            if !options.isReadOnly && access(dataFile(path), W_OK) != 0 {
                throw failure(dataFile(path), errno: errno, doing: "opening for writing")
            }
        case .notDirectory(let kind):
            throw StrataError(
                .storeCorrupt,
                "\(path) is not an LMDB environment: it is \(kind), and an LMDB store is a directory holding data.mdb",
                location: ["path": path, "kind": kind])
        case .foreignDirectory(let entries):
            throw StrataError(
                .storeCorrupt,
                "\(path) is not an LMDB environment: the directory holds \(entries) other entr\(entries == 1 ? "y" : "ies") and no data.mdb",
                location: ["path": path])
        case .emptyDirectory:
            guard options.createsIfMissing, !options.isReadOnly else {
                throw StrataError(
                    .storeNotFound, "there is no LMDB store in \(path) (the directory is empty)",
                    location: ["path": path])
            }
            if access(path, W_OK | X_OK) != 0 { throw failure(path, errno: errno, doing: "creating the store in") }
        case .missing:
            guard options.createsIfMissing, !options.isReadOnly else {
                throw StrataError(.storeNotFound, "there is no LMDB store at \(path)", location: ["path": path])
            }
        }
    }

    /// fsyncs the directory `path`, so that the entries just made in it are durable.
    static func sync(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path, errno: errno, doing: "opening the directory to sync") }
        defer { close(descriptor) }
        if fsync(descriptor) != 0 && errno != EINVAL {
            throw failure(path, errno: errno, doing: "syncing the directory")
        }
    }

    /// A ``StrataError`` for a failed system call on `path`.
    static func failure(_ path: String, errno code: Int32, doing what: String) -> StrataError {
        let text = String(cString: strerror(code))
        let kind: StrataError.Code
        switch code {
        case ENOENT: kind = .storeNotFound
        case EROFS: kind = .readOnly
        default: kind = .io
        }
        return StrataError(
            kind, "LMDB store at \(path): \(what) \(path) failed: \(text)", location: ["path": path], underlying: text)
    }
}
