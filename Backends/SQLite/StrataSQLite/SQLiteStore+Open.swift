import CStrataSQLite
import Foundation
import StrataCore

extension SQLiteStore {
    /// Opens or creates the store at `url` (see ``SQLiteBackend/open(_:model:options:)``).
    static func open(_ url: StoreURL, model: Model, options storeOptions: StoreOptions) throws -> SQLiteStore {
        let start = ContinuousClock.now
        let store = try openUnlogged(url, model: model, options: storeOptions)
        StrataLog.storeOpened(
            url, backend: SQLiteBackend.schemeName, model: model, readOnly: storeOptions.isReadOnly, since: start)
        return store
    }

    private static func openUnlogged(_ url: StoreURL, model: Model, options storeOptions: StoreOptions) throws
        -> SQLiteStore
    {
        try SQLiteBackend().checkLimits(of: model)
        let path = try SQLiteBackend.path(of: url)
        var options = try SQLiteStoreOptions(storeOptions, url: url)
        // What is there is checked before a lock file is created beside it: no store where none
        // may be created, a FIFO or a device, a file this process may not write.
        let found = try SQLiteFileInspection.inspect(path)
        if found == .missing && !(options.createsIfMissing && !options.isReadOnly) {
            throw StrataError(
                .storeNotFound,
                "there is no store at '\(path)'"
                    + (options.isReadOnly ? " (a read-only open never creates one)" : " and createsIfMissing is false"),
                location: ["path": path]
            )
        }
        if found != .missing && !options.isReadOnly {
            try SQLiteFileInspection.requireWritable(path, fileExists: true)
        }
        let accessLock = try StoreAccessLock.acquire(
            .shared, forStoreAt: path, url: url, timeoutMilliseconds: Int(options.busyTimeoutMilliseconds),
            readOnly: options.isReadOnly)
        if try SQLiteFileInspection.inspect(path) == .missing {
            guard options.createsIfMissing && !options.isReadOnly else {
                throw StrataError(
                    .storeNotFound,
                    "there is no store at '\(path)'"
                        + (options.isReadOnly
                            ? " (a read-only open never creates one)" : " and createsIfMissing is false"),
                    location: ["path": path]
                )
            }
            try SQLiteFileInspection.requireWritable(path, fileExists: false)
            _ = try SQLiteStoreCreation.create(at: path, url: url, model: model, options: options)
            _ = try SQLiteFileInspection.inspect(path)
        }
        if !options.isReadOnly {
            try SQLiteFileInspection.requireWritable(path, fileExists: true)
        } else {
            options.immutable = try SQLiteFileInspection.mustReadImmutably(path)
        }

        let flags = options.isReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        let connection = try SQLiteConnection(
            path: path, flags: flags, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds, vfs: options.vfs,
            immutable: options.immutable)
        do {
            let metadata = try prepareDatabase(connection, path: path, url: url, model: model, options: options)
            return try SQLiteStore(
                url: url, model: model, identifier: metadata.storeIdentifier, path: path, options: options,
                writer: options.isReadOnly ? nil : connection, reader: options.isReadOnly ? connection : nil,
                accessLock: accessLock
            )
        } catch {
            connection.close()
            throw error
        }
    }

    /// Checks an existing store against `model` (touching nothing on a mismatch), or creates the
    /// schema in an empty database; then sets WAL and the synchronous mode.
    private static func prepareDatabase(
        _ connection: SQLiteConnection, path: String, url: StoreURL, model: Model, options: SQLiteStoreOptions
    ) throws -> StoreMetadata {
        if let metadata = try SQLiteMetadataTable.read(from: connection) {
            try metadata.checkCompatible(with: model, at: url)
            let schema = SQLiteSchema(model: model)
            try schema.verify(on: connection, path: path)
            if !options.isReadOnly {
                try configureWriter(connection, options: options)
                try schema.rebuildOutdatedModelIndexes(on: connection)
                // A store made before history gets its (empty) history table.
                try SQLiteHistoryTable.addIfMissing(on: connection)
            }
            return metadata
        }
        guard try SQLiteMetadataTable.tableCount(in: connection) == 0 else {
            throw StrataError(
                .storeCorrupt,
                "'\(path)' is a SQLite database but not a Strata store (it has tables but no _strata_metadata table); Strata will not change it",
                location: ["path": path])
        }
        guard !options.isReadOnly else {
            throw StrataError(
                .storeCorrupt,
                "'\(path)' is an empty database, not a Strata store, and a read-only open cannot create one",
                location: ["path": path])
        }
        try configureWriter(connection, options: options)
        try connection.execute("BEGIN IMMEDIATE")
        do {
            // Another process may have created the store while we waited for the lock.
            if let metadata = try SQLiteMetadataTable.read(from: connection) {
                try connection.execute("COMMIT")
                try metadata.checkCompatible(with: model, at: url)
                return metadata
            }
            let metadata = StoreMetadata.new(
                storeType: SQLiteBackend.schemeName, model: model, identifier: options.identifierForNewStore)
            for statement in SQLiteSchema(model: model).creationStatements() { try connection.execute(statement) }
            try SQLiteMetadataTable.initialize(metadata, model: model, in: connection)
            try connection.execute("COMMIT")
            return metadata
        } catch {
            connection.rollbackQuietly()
            throw error
        }
    }

    private static func configureWriter(_ connection: SQLiteConnection, options: SQLiteStoreOptions) throws {
        _ = try connection.scalarText("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = \(options.synchronous.pragmaValue)")
    }
}
