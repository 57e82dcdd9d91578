import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Checks a store's file before SQLite touches it, so that bad input gets a precise error naming
/// the path and the cause: missing, a directory, not SQLite, truncated, not writable.
enum SQLiteFileInspection {
    enum State {
        case missing
        case empty
        case database
    }

    static func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    /// The state of `path`, or an error when it is not a usable SQLite file.
    static func inspect(_ path: String) throws -> State {
        var info = stat()
        if stat(path, &info) != 0 {
            let code = errno
            if code == ENOENT { return .missing }
            throw StrataError(
                .io, "cannot examine '\(path)': \(errnoText(code))", location: ["path": path],
                underlying: errnoText(code))
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw StrataError(
                .storeCorrupt, "'\(path)' is a directory, not a SQLite store file", location: ["path": path])
        }
        // Never open (let alone write a database onto) a FIFO, a socket or a device.
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StrataError(
                .storeCorrupt, "'\(path)' is \(FileKind.phrase(of: info.st_mode)), not a SQLite store file",
                location: ["path": path, "fileType": FileKind.name(of: info.st_mode)]
            )
        }
        if info.st_size == 0 { return .empty }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw StrataError(
                code == EACCES ? .readOnly : .io, "cannot read '\(path)': \(errnoText(code))", location: ["path": path],
                underlying: errnoText(code))
        }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 100)
        let count = header.withUnsafeMutableBytes { read(fd, $0.baseAddress, 100) }
        let magic = Array("SQLite format 3\0".utf8)
        guard count >= 16, Array(header[0..<16]) == magic else {
            throw StrataError(
                .storeCorrupt, "'\(path)' is not a SQLite database (its first bytes are not the SQLite header)",
                location: ["path": path])
        }
        guard count == 100 else {
            throw StrataError(
                .storeCorrupt, "'\(path)' is truncated: its SQLite header is cut short at \(count) bytes",
                location: ["path": path])
        }
        func be32(_ at: Int) -> UInt32 { header[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) } }
        let rawPageSize = UInt32(header[16]) << 8 | UInt32(header[17])
        let pageSize = rawPageSize == 1 ? 65536 : Int64(rawPageSize)
        let pages = Int64(be32(28))
        let sizeIsValid = be32(24) == be32(92) && pages > 0
        var walInfo = stat()
        let walIsEmpty = stat(path + "-wal", &walInfo) != 0 || walInfo.st_size == 0
        if sizeIsValid && walIsEmpty && pages * pageSize > Int64(info.st_size) {
            throw StrataError(
                .storeCorrupt,
                "'\(path)' is truncated: its header says \(pages * pageSize) bytes, the file has \(info.st_size)",
                location: ["path": path]
            )
        }
        return .database
    }

    /// The directory holding `path`.
    static func directory(of path: String) -> String {
        let parent = (path as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }

    /// Throws ``StrataError/Code/readOnly`` unless the file and its directory are writable (SQLite
    /// creates the `-wal` and `-shm` files beside the store).
    static func requireWritable(_ path: String, fileExists: Bool) throws {
        let directory = directory(of: path)
        var info = stat()
        if stat(directory, &info) != 0 {
            let code = errno
            throw StrataError(
                .io, "the directory '\(directory)' of the store '\(path)' cannot be used: \(errnoText(code))",
                location: ["path": path], underlying: errnoText(code))
        }
        if fileExists && access(path, W_OK) != 0 {
            let code = errno
            throw StrataError(
                .readOnly,
                "the store file '\(path)' is not writable (\(errnoText(code))); open it with isReadOnly: true to read it",
                location: ["path": path], underlying: errnoText(code))
        }
        if access(directory, W_OK) != 0 {
            let code = errno
            throw StrataError(
                .readOnly,
                "the directory '\(directory)' is not writable (\(errnoText(code))): SQLite needs to create the store's -wal and -shm files there; open with isReadOnly: true to read it",
                location: ["path": path], underlying: errnoText(code))
        }
    }

    /// Whether a read-only open of `path` must read the file as immutable: it lies on read-only
    /// media, where SQLite cannot create the `-shm` file it reads a WAL database through, no
    /// process can change it, and no `-wal` file holds changes the main file lacks.
    ///
    /// - Throws: ``StrataError/Code/readOnly`` when the directory cannot be written and the store
    ///   cannot be read: on a writable filesystem (another user's directory: its owner may be
    ///   writing the store, so reading it as immutable could see a damaged state), or with a
    ///   `-wal` file holding changes and no `-shm` beside it.
    static func mustReadImmutably(_ path: String) throws -> Bool {
        let directory = directory(of: path)
        guard access(directory, W_OK) != 0 else { return false }
        guard access(path + "-shm", F_OK) != 0 else { return false }
        var info = stat()
        let walHoldsChanges = stat(path + "-wal", &info) == 0 && info.st_size > 0
        guard isOnReadOnlyFilesystem(directory), !walHoldsChanges else {
            throw StrataError(
                .readOnly,
                "the store '\(path)' cannot be read: its directory '\(directory)' is not writable, and SQLite needs to create the store's -shm file there to read a WAL database; make the directory writable, or copy the store"
                    + (walHoldsChanges ? " with its -wal file" : ""),
                location: ["path": path]
            )
        }
        return true
    }

    /// Whether the filesystem holding `directory` is mounted read-only.
    static func isOnReadOnlyFilesystem(_ directory: String) -> Bool {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return false }
        return info.f_flag & UInt(ST_RDONLY) != 0
    }
}
