import CStrataSQLite
import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Creates a SQLite store whole or not at all.
///
/// The schema and metadata are written into a private file beside the store
/// (`.NAME.creating-PID-RANDOM`), synced, and only then linked to the store's name with `link(2)`,
/// which fails when the name exists. So a process killed while creating, or a full disk, leaves
/// no file under the store's name (a later open creates the store again and removes the
/// leftovers of dead processes), and two processes creating one store at once both end up with
/// the one the first of them linked.
enum SQLiteStoreCreation {
    /// Creates the store at `path` unless another process does it first; returns whether this
    /// call created it.
    static func create(at path: String, url: StoreURL, model: Model, options: SQLiteStoreOptions) throws -> Bool {
        let directory = SQLiteFileInspection.directory(of: path)
        let name = (path as NSString).lastPathComponent
        removeLeftovers(of: name, in: directory)
        try removeOrphanCompanions(of: path)
        let temporary = directory + "/" + temporaryPrefix(of: name) + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        // Locked from the moment it exists, while the file is built: the sweep of leftovers
        // takes the lock to know the creator is gone (a process ID cannot say so across PID
        // namespaces or hosts).
        let claim = open(temporary, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
        guard claim >= 0 else {
            throw failure(errno, "cannot create the store file '\(temporary)' for '\(path)'", path: path)
        }
        _ = flock(claim, LOCK_EX)
        defer {
            removeDatabase(at: temporary)
            close(claim)
        }
        try build(temporary, url: url, model: model, options: options)
        try syncFile(temporary, for: path)
        if link(temporary, path) != 0 {
            let code = errno
            if code == EEXIST { return false }
            // Filesystems without hard links: a rename that never replaces.
            guard code == EPERM || code == EOPNOTSUPP || code == ENOTSUP || code == ENOSYS || code == EMLINK else {
                throw failure(code, "cannot put the new store in place at '\(path)'", path: path)
            }
            if cstrata_rename_noreplace(temporary, path) != 0 {
                let renameCode = errno
                if renameCode == EEXIST { return false }
                throw failure(
                    renameCode,
                    "cannot put the new store in place at '\(path)' (this filesystem has no hard links, and no rename that refuses to replace a file)",
                    path: path)
            }
        }
        syncDirectory(directory)
        return true
    }

    /// Writes the schema and metadata into the empty file at `temporary`, in one transaction,
    /// and closes it with its write-ahead log folded in.
    private static func build(_ temporary: String, url: StoreURL, model: Model, options: SQLiteStoreOptions) throws {
        let connection = try SQLiteConnection(
            path: temporary, flags: SQLITE_OPEN_READWRITE, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds,
            vfs: options.vfs)
        defer { connection.close() }
        _ = try connection.scalarText("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = FULL")
        try connection.execute("BEGIN IMMEDIATE")
        do {
            let metadata = StoreMetadata.new(
                storeType: SQLiteBackend.schemeName, model: model, identifier: options.identifierForNewStore)
            for statement in SQLiteSchema(model: model).creationStatements() { try connection.execute(statement) }
            try SQLiteMetadataTable.initialize(metadata, model: model, in: connection)
            try connection.execute("COMMIT")
        } catch {
            connection.rollbackQuietly()
            throw error
        }
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// How old an unlocked temporary file must be before the sweep takes it for abandoned.
    static let abandonedAfterSeconds: TimeInterval = 2

    /// `.NAME.creating-`: the start of the temporary files of the store `NAME`.
    static func temporaryPrefix(of name: String) -> String { ".\(name).creating-" }

    /// Removes the temporary files that processes no longer running left while creating `name`.
    private static func removeLeftovers(of name: String, in directory: String) {
        let prefix = temporaryPrefix(of: name)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        // `.NAME.creating-PID-RANDOM`, and its `-wal`, `-shm` and `-journal` companions: a file
        // whose creator is gone is no longer locked.
        for entry in entries
        where entry.hasPrefix(prefix) && !entry.hasSuffix("-wal") && !entry.hasSuffix("-shm")
            && !entry.hasSuffix("-journal")
        {
            let file = directory + "/" + entry
            let fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                continue
            }
            // A creator takes its lock a moment after the file appears: only a file unlocked and
            // older than that moment is abandoned.
            let modified = (try? FileManager.default.attributesOfItem(atPath: file))?[.modificationDate] as? Date
            guard let modified, Date().timeIntervalSince(modified) >= Self.abandonedAfterSeconds else { continue }
            removeDatabase(at: file)
        }
    }

    /// Removes what a deleted store left beside its name: an empty write-ahead log, a `-shm`
    /// index, a rollback journal (which only undoes a transaction of a database that is gone).
    ///
    /// - Throws: ``StrataError/Code/storeCorrupt`` when a `-wal` file holds data: it may hold
    ///   committed transactions of a store whose database file was moved away, and SQLite would
    ///   replay it into the new store.
    private static func removeOrphanCompanions(of path: String) throws {
        guard access(path, F_OK) != 0 else { return }
        var info = stat()
        if stat(path + "-wal", &info) == 0 && info.st_size > 0 {
            throw StrataError(
                .storeCorrupt,
                "'\(path)-wal' holds \(info.st_size) bytes of a store whose database file '\(path)' is missing; move the database back beside it, or move the -wal file away, before creating a store here",
                location: ["path": path, "wal": path + "-wal"]
            )
        }
        for orphan in [path + "-wal", path + "-shm", path + "-journal"] { unlink(orphan) }
    }

    /// Removes a database file and its companions, ignoring what is not there.
    private static func removeDatabase(at path: String) {
        for file in [path, path + "-wal", path + "-shm", path + "-journal"] { unlink(file) }
    }

    private static func syncFile(_ file: String, for path: String) throws {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(errno, "cannot open the new store file '\(file)' to sync it", path: path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw failure(errno, "cannot sync the new store file '\(file)'", path: path) }
    }

    private static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    private static func failure(_ code: Int32, _ what: String, path: String) -> StrataError {
        let text = SQLiteFileInspection.errnoText(code)
        let strataCode: StrataError.Code = (code == EACCES || code == EROFS || code == EPERM) ? .readOnly : .io
        return StrataError(strataCode, "\(what): \(text)", location: ["path": path], underlying: text)
    }
}
