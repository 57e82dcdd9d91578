import CStrataSQLite
import Foundation
import StrataCore

/// A store in one SQLite database file, with a schema a person can read.
///
/// Open it through ``SQLiteBackend`` (scheme `sqlite`). The file is in WAL mode with
/// `synchronous=NORMAL` unless the `synchronous` option says otherwise (see docs/SQLiteStore.md).
///
/// ## Concurrency
/// The store is called from many threads. Saves and ID allocation go through one writer
/// connection under a lock; each runs as one `BEGIN IMMEDIATE` transaction, so writers in other
/// processes wait (up to the busy timeout) rather than interleave. Fetches use a small pool of
/// reader connections: in WAL mode each fetch reads one committed state of the file, so a fetch
/// running during a save sees the state before it or after it, never a part of it.
public final class SQLiteStore: PersistentStore {
    /// Where the store lives.
    public let url: StoreURL
    /// The model the store was opened with.
    public let model: Model
    /// The store's identifier, read from its metadata.
    public let identifier: String
    /// The database file's path.
    public let path: String

    let schema: SQLiteSchema
    let options: SQLiteStoreOptions
    /// The writer connection; `nil` when the store is read-only or closed.
    let writer: Locked<SQLiteConnection?>
    let readers: Locked<ReaderPool>

    struct ReaderPool {
        var idle: [SQLiteConnection] = []
        var isClosed = false
    }

    static let maximumIdleReaders = 4

    /// The store-wide lock, held shared while the store is open (see `StoreAccessLock`).
    private let accessLock: StoreAccessLock?
    /// SQLite's schema version when the store was opened, or last checked to still match the
    /// model (`nil` when read-only).
    private let schemaVersion: Locked<Int64?>
    /// Whether the file is known to have the history table (see `SQLiteStore+History`).
    let historyTableFound = Locked(false)
    /// What ``queryBuildCounts`` reports.
    let queryBuilds = Locked<(builds: Int, shapeMismatches: Int)>((0, 0))

    init(
        url: StoreURL, model: Model, identifier: String, path: String, options: SQLiteStoreOptions,
        writer: SQLiteConnection?, reader: SQLiteConnection?, accessLock: StoreAccessLock?
    ) throws {
        self.accessLock = accessLock
        self.schemaVersion = Locked(try writer?.scalarText("PRAGMA schema_version").flatMap { Int64($0) })
        self.url = url
        self.model = model
        self.identifier = identifier
        self.path = path
        self.options = options
        self.schema = SQLiteSchema(model: model)
        self.writer = Locked(writer)
        var pool = ReaderPool()
        if let reader { pool.idle.append(reader) }
        self.readers = Locked(pool)
    }

    deinit {
        writer.withLock {
            $0?.close()
            $0 = nil
        }
        readers.withLock { pool in
            for connection in pool.idle { connection.close() }
            pool.idle.removeAll()
        }
    }

    // MARK: Connections

    var closedError: StrataError {
        StrataError(.storeClosed, "the SQLite store at '\(path)' is closed", location: ["path": path])
    }

    /// Runs `body` with a reader connection from the pool (opening one when none is idle).
    func withReader<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let idle: SQLiteConnection? = try readers.withLock { pool throws(StrataError) -> SQLiteConnection? in
            if pool.isClosed { throw closedError }
            return pool.idle.popLast()
        }
        let connection =
            try idle
            ?? SQLiteConnection(
                path: path, flags: SQLITE_OPEN_READONLY, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds,
                vfs: options.vfs, immutable: options.immutable)
        defer {
            let keep = readers.withLock { pool -> Bool in
                guard !pool.isClosed, pool.idle.count < Self.maximumIdleReaders else { return false }
                pool.idle.append(connection)
                return true
            }
            if !keep { connection.close() }
        }
        return try body(connection)
    }

    /// Runs `body` with the writer connection, under the write lock.
    func withWriter<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writer.withLock { connection in
            guard let connection else {
                if readers.withLock({ $0.isClosed }) { throw closedError }
                throw StrataError(
                    .readOnly, "the SQLite store at '\(path)' was opened read-only", location: ["path": path])
            }
            return try body(connection)
        }
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction on the writer: committed when it returns,
    /// rolled back when it throws.
    func inWriteTransaction<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try withWriter { connection in
            try connection.execute("BEGIN IMMEDIATE")
            do {
                try checkSchemaUnchanged(connection)
                let result = try body(connection)
                try connection.execute("COMMIT")
                return result
            } catch {
                connection.rollbackQuietly()
                throw error
            }
        }
    }

    /// Throws ``StrataError/Code/modelMismatch`` when the schema changed since the store was
    /// opened into one its model does not describe: another program migrated it (one that
    /// ignores Strata's store lock, or an older version of Strata). Writing rows of the model this
    /// store was opened with into the new schema would corrupt it. A change that leaves the
    /// schema matching the model (VACUUM, ANALYZE, an index a user added) is accepted. Runs at
    /// the start of every write transaction: one `PRAGMA schema_version`.
    private func checkSchemaUnchanged(_ connection: SQLiteConnection) throws {
        let statement = try connection.prepare("PRAGMA schema_version")
        defer { statement.reset() }
        guard try statement.step() else { return }
        let current = statement.int64(0)
        let known = schemaVersion.withLock { $0 }
        guard let known, current != known else { return }
        let metadata = try SQLiteMetadataTable.read(from: connection)
        if let metadata, model.matchesVersionHash(metadata.modelVersionHash),
            (try? SQLiteSchema(model: model).verify(on: connection, path: path)) != nil
        {
            schemaVersion.withLock { $0 = current }
            return
        }
        throw StrataError(
            .modelMismatch,
            "the store at '\(path)' was changed by another process since it was opened with model version \(model.versionIdentifier): its schema"
                + (metadata.map { " is now that of model version \($0.modelVersionIdentifier)" }
                    ?? " no longer matches the model") + "; nothing was written; open it again",
            location: ["path": path, "modelVersion": model.versionIdentifier]
        )
    }

    // MARK: PersistentStore

    /// The store's metadata, read from `_strata_metadata`.
    public func metadata() throws -> StoreMetadata {
        try withReader { try SQLiteMetadataTable.read(from: $0) }
            ?? {
                throw StrataError(.storeCorrupt, "the store at '\(path)' has no metadata", location: ["path": path])
            }()
    }

    /// Hands out `count` keys from the `_strata_sequence` table inside `BEGIN IMMEDIATE`, so no key
    /// is handed out twice, across processes and reopen.
    public func obtainPermanentIDs(for entityName: String, count: Int) throws -> [ObjectID] {
        let entity = try model.requireEntity(entityName)
        guard count >= 0 else {
            throw StrataError(.invalidRequest, "cannot obtain \(count) IDs", location: ["entity": entityName])
        }
        if count == 0 { return [] }
        let first: Int64 = try inWriteTransaction { connection in
            let select = try connection.prepare(
                "SELECT \(q("lastKey")) FROM \(q("_strata_sequence")) WHERE \(q("entity")) = ?")
            select.bind(1, entity.name)
            let last = try select.step() ? select.int64(0) : 0
            select.reset()
            let (next, overflow) = last.addingReportingOverflow(Int64(count))
            guard !overflow else {
                throw StrataError(
                    .internalInconsistency, "the keys of '\(entity.name)' are exhausted",
                    location: ["path": path, "entity": entity.name])
            }
            let upsert = try connection.prepare(
                "INSERT INTO \(q("_strata_sequence")) (\(q("entity")), \(q("lastKey"))) VALUES (?, ?) ON CONFLICT (\(q("entity"))) DO UPDATE SET \(q("lastKey")) = excluded.\(q("lastKey"))"
            )
            upsert.bind(1, entity.name)
            upsert.bind(2, next)
            try upsert.run()
            return last + 1
        }
        var ids: [ObjectID] = []
        ids.reserveCapacity(count)
        // Offsets from `first`: `first + count` is one past the last key and overflows when the
        // last key handed out is Int64.max.
        let scope = ObjectID.Scope(entityName: entity.name, storeIdentifier: identifier)
        for offset in 0..<Int64(count) {
            ids.append(scope.id(primaryKey: first + offset))
        }
        return ids
    }

    /// Closes every connection; later calls throw ``StrataError/Code/storeClosed``.
    public func close() throws {
        let idle = readers.withLock { pool -> [SQLiteConnection] in
            pool.isClosed = true
            defer { pool.idle.removeAll() }
            return pool.idle
        }
        for connection in idle { connection.close() }
        writer.withLock { connection in
            connection?.close()
            connection = nil
        }
        accessLock?.release()
    }
}
