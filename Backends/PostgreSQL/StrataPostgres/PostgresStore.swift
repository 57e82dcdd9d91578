import Foundation
import StrataCore

/// A store in one schema of a PostgreSQL database, with tables a person can read (see
/// ``PostgresSchema``).
///
/// Open it through ``PostgresBackend`` (scheme `postgres` or `postgresql`).
///
/// ## Concurrency
/// The store is called from many threads and, through other stores on the same schema, from
/// other processes and hosts. Every call takes a connection from the store's pool
/// (``PostgresConnectionPool``, `pool` connections at most). Each save is one transaction at
/// READ COMMITTED whose updates and deletes check each object's `_version` in their `WHERE`
/// clause, so a save that meets a change made since its objects were read writes nothing and
/// fails with ``StrataError/Code/conflict``. Reads that take several statements (a snapshot with
/// its to-many relationships) run in one REPEATABLE READ transaction, so they see one committed
/// state.
public final class PostgresStore: PersistentStore {
    /// Where the store lives.
    public let url: StoreURL
    /// The model the store was opened with.
    public let model: Model
    /// The store's identifier, read from its metadata.
    public let identifier: String

    let schema: PostgresSchema
    let options: PostgresStoreOptions
    let pool: PostgresConnectionPool
    /// The reader of each entity's rows, by entity name (made once: it names the ID scopes).
    let readers: [String: PostgresRowReader]
    /// How fetches were answered (see ``queryCounts``).
    let queryCounter = Locked(PostgresQueryCounts())
    /// The server and database, for messages (no password).
    var endpoint: String { options.connection.endpoint }

    init(
        url: StoreURL, model: Model, identifier: String, options: PostgresStoreOptions, pool: PostgresConnectionPool
    ) {
        self.url = url
        self.model = model
        self.identifier = identifier
        self.options = options
        self.pool = pool
        schema = PostgresSchema(model: model, schema: options.schema)
        readers = schema.tables.mapValues { PostgresRowReader(table: $0, storeIdentifier: identifier) }
    }

    /// The reader of `table`'s rows.
    func reader(for table: PostgresEntityTable) -> PostgresRowReader {
        readers[table.name] ?? PostgresRowReader(table: table, storeIdentifier: identifier)
    }

    /// `location` entries naming this store in errors.
    var location: [String: String] { ["server": endpoint, "schema": schema.name] }

    /// Throws ``StrataError/Code/readOnly`` when the store was opened read-only.
    func requireWritable(_ action: String) throws {
        guard options.isReadOnly else { return }
        throw StrataError(
            .readOnly,
            "cannot \(action): the PostgreSQL store in schema '\(schema.name)' at \(endpoint) was opened read-only",
            location: location)
    }

    /// Runs `body` in a read-only transaction that sees one committed state of the database.
    func inReadTransaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try pool.inTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    // MARK: PersistentStore

    /// The store's metadata, read from `_strata_metadata`.
    public func metadata() throws -> StoreMetadata {
        try pool.withConnection { connection in
            guard let metadata = try PostgresMetadataTable.read(schema: schema.name, on: connection, endpoint: endpoint)
            else {
                throw StrataError(
                    .storeCorrupt, "the store in schema '\(schema.name)' at \(endpoint) has no metadata",
                    location: location)
            }
            return metadata
        }
    }

    /// Hands out `count` keys from the entity's row in `_strata_sequence` with one `INSERT ...
    /// ON CONFLICT DO UPDATE ... RETURNING`: the row lock makes concurrent callers on any host
    /// take turns, so no key is handed out twice, across processes, hosts and reopen.
    public func obtainPermanentIDs(for entityName: String, count: Int) throws -> [ObjectID] {
        let entity = try model.requireEntity(entityName)
        guard count >= 0 else {
            throw StrataError(.invalidRequest, "cannot obtain \(count) IDs", location: ["entity": entityName])
        }
        if count == 0 { return [] }
        try requireWritable("obtain IDs")
        let sequence = schema.qualified(PostgresSchema.sequenceTable)
        let last: Int64 = try pool.withConnection { connection in
            do {
                let result = try connection.query(
                    "INSERT INTO \(sequence) (\(pq("entity")), \(pq("last_key"))) VALUES ($1, $2) ON CONFLICT (\(pq("entity"))) DO UPDATE SET \(pq("last_key")) = \(sequence).\(pq("last_key")) + excluded.\(pq("last_key")) RETURNING \(pq("last_key"))",
                    [.text(entity.name), .int64(Int64(count))])
                return result.int64(0, 0)
            } catch let error as StrataError where error.location["sqlstate"] == "22003" {
                throw StrataError(
                    .internalInconsistency, "the keys of '\(entity.name)' are exhausted",
                    location: location.merging(["entity": entity.name]) { $1 }, underlying: error.underlying)
            }
        }
        let first = last - Int64(count) + 1
        let scope = ObjectID.Scope(entityName: entity.name, storeIdentifier: identifier)
        var ids: [ObjectID] = []
        ids.reserveCapacity(count)
        for offset in 0..<Int64(count) { ids.append(scope.id(primaryKey: first + offset)) }
        return ids
    }

    /// Closes every idle connection; later calls throw ``StrataError/Code/storeClosed``. Closing
    /// twice is harmless.
    public func close() throws {
        pool.close()
    }
}
