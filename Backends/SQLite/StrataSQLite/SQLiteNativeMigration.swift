import CStrataSQLite
import Foundation
import StrataCore

/// SQLite runs every migration step in place, in SQL, inside ONE `BEGIN IMMEDIATE` transaction
/// that also updates the metadata: a crash or an error at any point leaves the file at the old
/// version (SQLite's journal), the commit puts it at the new one.
extension SQLiteBackend: NativeMigrating {
    /// Always `true`: every inferred change has an SQL form (see ``SQLiteMigrationRunner``).
    public func canMigrateNatively(_ step: MigrationStep) -> Bool { true }

    /// Runs `step` on the store file at `url` in one transaction.
    public func migrateNatively(
        _ step: MigrationStep,
        at url: StoreURL,
        options: StoreOptions,
        metadataChanges: [String: String?],
        progress: (StoreProgress) -> Void,
        isCancelled: () -> Bool
    ) throws {
        let path = try Self.path(of: url)
        var writable = options
        writable.isReadOnly = false
        writable.createsIfMissing = false
        let storeOptions = try SQLiteStoreOptions(writable, url: url)
        guard try SQLiteFileInspection.inspect(path) == .database else {
            throw StrataError(
                .storeNotFound, "there is no SQLite store at '\(path)' to migrate", location: ["path": path])
        }
        try SQLiteFileInspection.requireWritable(path, fileExists: true)
        let connection = try SQLiteConnection(
            path: path, flags: SQLITE_OPEN_READWRITE, busyTimeoutMilliseconds: storeOptions.busyTimeoutMilliseconds)
        defer { connection.close() }
        _ = try connection.scalarText("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = \(storeOptions.synchronous.pragmaValue)")
        try connection.execute("BEGIN IMMEDIATE")
        do {
            guard let metadata = try SQLiteMetadataTable.read(from: connection) else {
                throw StrataError(
                    .storeCorrupt, "'\(path)' is not a Strata store (it has no _strata_metadata table)",
                    location: ["path": path])
            }
            if step.destination.matchesVersionHash(metadata.modelVersionHash) && !step.isStructurallyEmpty {
                // Another process finished this step while we waited for the lock.
                try connection.execute("COMMIT")
                return
            }
            guard step.source.matchesVersionHash(metadata.modelVersionHash) else {
                throw StrataError(
                    .modelMismatch,
                    "the store at '\(path)' is at model version '\(metadata.modelVersionIdentifier)' (hash \(metadata.modelVersionHash)), not at '\(step.source.versionIdentifier)' where the step \(step.name) starts; nothing was changed",
                    location: ["path": path, "storeHash": metadata.modelVersionHash])
            }
            try withoutActuallyEscaping(progress) { progress in
                try withoutActuallyEscaping(isCancelled) { isCancelled in
                    var runner = SQLiteMigrationRunner(
                        step: step, connection: connection, path: path, progress: progress, isCancelled: isCancelled)
                    try runner.run()
                }
            }
            try SQLiteMetadataTable.setModel(step.destination, in: connection)
            try SQLiteMetadataTable.set("modelVersionHash", step.destination.versionHash, in: connection)
            try SQLiteMetadataTable.set("modelVersionIdentifier", step.destination.versionIdentifier, in: connection)
            for (key, value) in metadataChanges.sorted(by: { $0.key < $1.key }) {
                try SQLiteMetadataTable.set(SQLiteMetadataTable.userPrefix + key, value, in: connection)
            }
            if isCancelled() {
                throw StrataError(
                    .cancelled, "the migration \(step.name) of '\(path)' was cancelled; the store is unchanged",
                    location: ["path": path])
            }
            try connection.execute("COMMIT")
        } catch {
            connection.rollbackQuietly()
            throw error
        }
    }
}
