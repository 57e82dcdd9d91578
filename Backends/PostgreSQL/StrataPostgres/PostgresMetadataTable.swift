import Foundation
import StrataCore

/// Reads and writes `_strata_metadata`: one row per key, the same keys as the SQLite store's:
/// `storeIdentifier`, `storeType`, `modelVersionHash`, `modelVersionIdentifier`,
/// `formatVersion`, the application's keys as `user:<key>`, and the JSON of each model version
/// the store has been written with as `model:<versionHash>`.
enum PostgresMetadataTable {
    static let userPrefix = MetadataRows.userPrefix
    static let modelPrefix = MetadataRows.modelPrefix
    static let formatVersion = "1"

    /// Whether `schema` holds Strata's metadata table. Read from `pg_class` with the statement's
    /// snapshot, not with `to_regclass` (whose catalog cache may not yet show a table another
    /// session created while this one waited for a lock).
    static func exists(schema: String, on connection: PostgresConnection) throws -> Bool {
        let result = try connection.query(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON c.relnamespace = n.oid WHERE n.nspname = $1 AND c.relname = $2)",
            [.text(schema), .text(PostgresSchema.metadataTable)])
        return result.rowCount > 0 && result.bool(0, 0)
    }

    /// How many tables `schema` holds (0 also when there is no such schema).
    static func tableCount(schema: String, on connection: PostgresConnection) throws -> Int {
        let result = try connection.query(
            "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = $1", [.text(schema)])
        return Int(result.int64(0, 0))
    }

    /// The metadata, or `nil` when `schema` has no metadata table.
    static func read(schema: String, on connection: PostgresConnection, endpoint: String) throws -> StoreMetadata? {
        guard try exists(schema: schema, on: connection) else { return nil }
        let result = try connection.query(
            "SELECT \(pq("key")), \(pq("value")) FROM \(table(schema)) WHERE left(\(pq("key")), \(modelPrefix.count)) <> \(pqLiteral(modelPrefix))"
        )
        let rows = (0..<result.rowCount).map { (key: result.string($0, 0), value: result.string($0, 1)) }
        guard let metadata = MetadataRows.metadata(rows, defaultStoreType: PostgresBackend.schemeName) else {
            throw StrataError(
                .storeCorrupt,
                "the metadata of the store in schema '\(schema)' at \(endpoint) lacks the store identifier or the model hash",
                location: ["server": endpoint, "schema": schema])
        }
        return metadata
    }

    /// Sets `key` to `value`, or removes it when `value` is `nil`.
    static func set(_ key: String, _ value: String?, schema: String, on connection: PostgresConnection) throws {
        if let value {
            try connection.query(
                "INSERT INTO \(table(schema)) (\(pq("key")), \(pq("value"))) VALUES ($1, $2) ON CONFLICT (\(pq("key"))) DO UPDATE SET \(pq("value")) = excluded.\(pq("value"))",
                [.text(key), .text(value)])
        } else {
            try connection.query("DELETE FROM \(table(schema)) WHERE \(pq("key")) = $1", [.text(key)])
        }
    }

    /// The value of `key`, or `nil`.
    static func value(_ key: String, schema: String, on connection: PostgresConnection) throws -> String? {
        let result = try connection.query(
            "SELECT \(pq("value")) FROM \(table(schema)) WHERE \(pq("key")) = $1", [.text(key)])
        return result.rowCount > 0 ? result.string(0, 0) : nil
    }

    /// The JSON of the model version with `hash` the store carries, or `nil`.
    static func modelJSON(forVersionHash hash: String, schema: String, on connection: PostgresConnection) throws
        -> Data?
    {
        guard try exists(schema: schema, on: connection) else { return nil }
        return try value(modelPrefix + hash, schema: schema, on: connection).map { Data($0.utf8) }
    }

    /// Writes the metadata of a new store written with `model`.
    static func initialize(
        _ metadata: StoreMetadata, model: Model, schema: String, on connection: PostgresConnection
    ) throws {
        try set(
            modelPrefix + model.versionHash, String(decoding: model.jsonData(), as: UTF8.self), schema: schema,
            on: connection)
        try set("storeIdentifier", metadata.storeIdentifier, schema: schema, on: connection)
        try set("storeType", metadata.storeType, schema: schema, on: connection)
        try set("modelVersionHash", metadata.modelVersionHash, schema: schema, on: connection)
        try set("modelVersionIdentifier", metadata.modelVersionIdentifier, schema: schema, on: connection)
        try set("formatVersion", formatVersion, schema: schema, on: connection)
        for (key, value) in metadata.userInfo.sorted(by: { $0.key < $1.key }) {
            try set(userPrefix + key, value, schema: schema, on: connection)
        }
    }

    private static func table(_ schema: String) -> String { pq(schema) + "." + pq(PostgresSchema.metadataTable) }
}
