import Foundation
import StrataCore

/// Reads and writes `_strata_metadata`: one row per key. Strata's own keys are `storeIdentifier`,
/// `storeType`, `modelVersionHash`, `modelVersionIdentifier` and `formatVersion`; the
/// application's keys are stored as `user:<key>`, and the JSON of each model version the store
/// has been written with as `model:<versionHash>`.
enum SQLiteMetadataTable {
    static let userPrefix = MetadataRows.userPrefix
    static let modelPrefix = MetadataRows.modelPrefix
    static let formatVersion = "1"

    /// Whether the database has Strata's metadata table.
    static func exists(in connection: SQLiteConnection) throws -> Bool {
        let statement = try connection.prepare(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '_strata_metadata'")
        defer { statement.reset() }
        return try statement.step() && statement.int64(0) > 0
    }

    /// The number of tables in the database.
    static func tableCount(in connection: SQLiteConnection) throws -> Int64 {
        let statement = try connection.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'")
        defer { statement.reset() }
        return try statement.step() ? statement.int64(0) : 0
    }

    /// The metadata, or `nil` when the table does not exist.
    static func read(from connection: SQLiteConnection) throws -> StoreMetadata? {
        guard try exists(in: connection) else { return nil }
        // The models are read only when asked for (``modelJSON(forVersionHash:in:)``).
        let statement = try connection.prepare(
            "SELECT \(q("key")), \(q("value")) FROM \(q("_strata_metadata")) WHERE substr(\(q("key")), 1, \(modelPrefix.count)) != '\(modelPrefix)'"
        )
        defer { statement.reset() }
        var rows: [(key: String, value: String)] = []
        while try statement.step() { rows.append((statement.string(0), statement.string(1))) }
        guard let metadata = MetadataRows.metadata(rows, defaultStoreType: SQLiteBackend.schemeName) else {
            throw StrataError(
                .storeCorrupt,
                "the metadata of the store at '\(connection.path)' lacks the store identifier or the model hash",
                location: ["path": connection.path])
        }
        return metadata
    }

    /// Sets `key` to `value`, or removes it when `value` is `nil`.
    static func set(_ key: String, _ value: String?, in connection: SQLiteConnection) throws {
        if let value {
            let statement = try connection.prepare(
                "INSERT INTO \(q("_strata_metadata")) (\(q("key")), \(q("value"))) VALUES (?, ?) ON CONFLICT (\(q("key"))) DO UPDATE SET \(q("value")) = excluded.\(q("value"))"
            )
            statement.bind(1, key)
            statement.bind(2, value)
            try statement.run()
        } else {
            let statement = try connection.prepare("DELETE FROM \(q("_strata_metadata")) WHERE \(q("key")) = ?")
            statement.bind(1, key)
            try statement.run()
        }
    }

    /// The JSON of the model version with `hash` the store carries, or `nil`.
    static func modelJSON(forVersionHash hash: String, in connection: SQLiteConnection) throws -> Data? {
        guard try exists(in: connection) else { return nil }
        let statement = try connection.prepare(
            "SELECT \(q("value")) FROM \(q("_strata_metadata")) WHERE \(q("key")) = ?")
        defer { statement.reset() }
        statement.bind(1, modelPrefix + hash)
        return try statement.step() ? Data(statement.string(0).utf8) : nil
    }

    /// Records `model`'s JSON under its hash (the store keeps the ones it had before).
    static func setModel(_ model: Model, in connection: SQLiteConnection) throws {
        try set(modelPrefix + model.versionHash, String(decoding: model.jsonData(), as: UTF8.self), in: connection)
    }

    /// Writes the metadata of a new store written with `model`.
    static func initialize(_ metadata: StoreMetadata, model: Model, in connection: SQLiteConnection) throws {
        try setModel(model, in: connection)
        try set("storeIdentifier", metadata.storeIdentifier, in: connection)
        try set("storeType", metadata.storeType, in: connection)
        try set("modelVersionHash", metadata.modelVersionHash, in: connection)
        try set("modelVersionIdentifier", metadata.modelVersionIdentifier, in: connection)
        try set("formatVersion", formatVersion, in: connection)
        for (key, value) in metadata.userInfo { try set(userPrefix + key, value, in: connection) }
    }
}
