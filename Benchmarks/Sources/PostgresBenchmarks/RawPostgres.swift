import BenchmarkSupport
import CStrataPostgres
import Foundation

/// A record read back by the raw path (the fields of `WorkloadRecord`).
struct RawRecord {
    var id: Int64
    var i1: Int64, i2: Int64, i3: Int64
    var d1: Double, d2: Double, d3: Double
    var s1: String, s2: String, s3: String

    /// Every field added up, as ``recordChecksum(_:)`` adds up a workload record.
    var checksum: Int {
        checksumOf(id: id, i1: i1, i2: i2, i3: i3, d1: d1, d2: d2, d3: d3, s1: s1, s2: s2, s3: s3)
    }
}

/// What every side adds up from a record it read, so that a side returning wrong or missing
/// values cannot pass for a fast one.
func checksumOf(
    id: Int64, i1: Int64, i2: Int64, i3: Int64, d1: Double, d2: Double, d3: Double, s1: String, s2: String, s3: String
) -> Int {
    Int(truncatingIfNeeded: id &* 31 &+ i1 &+ i2 &* 3 &+ i3 &* 5) &+ Int((d1 + d2 * 2 + d3 * 3) * 1000)
        &+ s1.utf8.count &+ s2.utf8.count &* 7 &+ s3.utf8.count &* 11 &+ Int(s1.utf8.first ?? 0)
}

/// The checksum of a workload record, as a side reading it back must find it.
func recordChecksum(_ r: WorkloadRecord) -> Int {
    checksumOf(id: r.id, i1: r.i1, i2: r.i2, i3: r.i3, d1: r.d1, d2: r.d2, d3: r.d3, s1: r.s1, s2: r.s2, s3: r.s3)
}

/// The baseline: the workloads written directly against libpq, the honest fastest way a C
/// programmer would: one connection, one transaction per batch, values bound and read in binary,
/// statements prepared once; the bulk insert through binary `COPY`, the bulk update through
/// pipeline mode (2,000 `UPDATE`s sent before their results are read), the bulk delete as one
/// `DELETE ... WHERE id = ANY($1)`.
final class RawPostgres {
    let connection: OpaquePointer
    /// The PostgreSQL schema holding the table (dropped by ``dropSchema()``).
    let schema: String
    private var prepared: Set<String> = []

    /// Connects to `url` (a libpq URL with no Strata options) and makes `schema` with the table.
    init(url: String, schema: String) {
        guard let connection = PQconnectdb(url), PQstatus(connection) == CONNECTION_OK else {
            fatalError("raw libpq: cannot connect to the server")
        }
        self.connection = connection
        self.schema = schema
        exec("SET client_min_messages = warning")
        exec("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE")
        exec("CREATE SCHEMA \"\(schema)\"")
        exec("SET search_path TO \"\(schema)\"")
        exec(
            "CREATE TABLE record (id bigint PRIMARY KEY, i1 bigint NOT NULL, i2 bigint NOT NULL, i3 bigint NOT NULL, "
                + "d1 double precision NOT NULL, d2 double precision NOT NULL, d3 double precision NOT NULL, "
                + "s1 text NOT NULL, s2 text NOT NULL, s3 text NOT NULL)")
    }

    deinit { PQfinish(connection) }

    /// Drops the schema and everything in it.
    func dropSchema() { exec("DROP SCHEMA IF EXISTS \"\(schema)\" CASCADE") }

    /// Runs `sql` with the simple protocol; stops the program on failure.
    func exec(_ sql: String) {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { fail(sql) }
    }

    private func fail(_ what: String) -> Never {
        fatalError("raw libpq: \(what): \(String(cString: PQerrorMessage(connection)))")
    }

    /// Prepares `sql` under `name` once per connection.
    private func prepare(_ name: String, _ sql: String, types: [UInt32]) {
        guard !prepared.contains(name) else { return }
        let result = PQprepare(connection, name, sql, Int32(types.count), types)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { fail(sql) }
        prepared.insert(name)
    }

    // MARK: W1

    /// Inserts every record in one transaction, through `COPY ... FROM STDIN (FORMAT binary)`.
    func insert(_ records: [WorkloadRecord]) {
        exec("BEGIN")
        let result = PQexec(
            connection, "COPY record (id, i1, i2, i3, d1, d2, d3, s1, s2, s3) FROM STDIN (FORMAT binary)")
        guard PQresultStatus(result) == PGRES_COPY_IN else { fail("COPY") }
        PQclear(result)
        var buffer = BinaryWriter(capacity: 1 << 20)
        buffer.bytes += Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00]
        buffer.int32(0)
        buffer.int32(0)
        for r in records {
            buffer.int16(10)
            buffer.field(r.id)
            buffer.field(r.i1)
            buffer.field(r.i2)
            buffer.field(r.i3)
            buffer.field(r.d1)
            buffer.field(r.d2)
            buffer.field(r.d3)
            buffer.field(r.s1)
            buffer.field(r.s2)
            buffer.field(r.s3)
            if buffer.bytes.count >= 1 << 20 { send(&buffer) }
        }
        buffer.int16(-1)
        send(&buffer)
        guard PQputCopyEnd(connection, nil) == 1 else { fail("COPY end") }
        while let result = PQgetResult(connection) {
            defer { PQclear(result) }
            guard PQresultStatus(result) == PGRES_COMMAND_OK else { fail("COPY") }
        }
        exec("COMMIT")
    }

    private func send(_ buffer: inout BinaryWriter) {
        let sent = buffer.bytes.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { PQputCopyData(connection, $0.baseAddress, Int32($0.count)) }
        }
        guard sent == 1 else { fail("COPY data") }
        buffer.bytes.removeAll(keepingCapacity: true)
    }

    // MARK: W2, W3

    static let columns = "id, i1, i2, i3, d1, d2, d3, s1, s2, s3"

    /// Every record, materialized, in key order.
    func fetchAll() -> [RawRecord] {
        prepare("fetch_all", "SELECT \(Self.columns) FROM record ORDER BY id", types: [])
        let result = PQexecPrepared(connection, "fetch_all", 0, nil, nil, nil, 1)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK, let result else { fail("fetch all") }
        let rows = Int(PQntuples(result))
        var records: [RawRecord] = []
        records.reserveCapacity(rows)
        for row in 0..<rows { records.append(read(result, Int32(row))) }
        return records
    }

    /// The record with key `key`, or `nil`.
    func lookup(_ key: Int64) -> RawRecord? {
        prepare("lookup", "SELECT \(Self.columns) FROM record WHERE id = $1", types: [PostgresOID.int8])
        var parameter = BinaryWriter(capacity: 8)
        parameter.int64(key)
        let result = parameter.bytes.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { value -> OpaquePointer? in
                var values: [UnsafePointer<CChar>?] = [value.baseAddress]
                var lengths: [Int32] = [8]
                var formats: [Int32] = [1]
                return PQexecPrepared(connection, "lookup", 1, &values, &lengths, &formats, 1)
            }
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK, let result else { fail("lookup") }
        return PQntuples(result) == 1 ? read(result, 0) : nil
    }

    private func read(_ result: OpaquePointer, _ row: Int32) -> RawRecord {
        func int64(_ column: Int32) -> Int64 {
            Int64(bigEndian: UnsafeRawPointer(PQgetvalue(result, row, column)!).loadUnaligned(as: Int64.self))
        }
        func double(_ column: Int32) -> Double {
            Double(
                bitPattern: UInt64(
                    bigEndian: UnsafeRawPointer(PQgetvalue(result, row, column)!).loadUnaligned(as: UInt64.self)))
        }
        func text(_ column: Int32) -> String {
            let length = Int(PQgetlength(result, row, column))
            return PQgetvalue(result, row, column)!.withMemoryRebound(to: UInt8.self, capacity: length) {
                String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
            }
        }
        return RawRecord(
            id: int64(0), i1: int64(1), i2: int64(2), i3: int64(3), d1: double(4), d2: double(5), d3: double(6),
            s1: text(7), s2: text(8), s3: text(9))
    }

    // MARK: W4, W5

    /// Rewrites the records (every column, as an object store writes an object) in one
    /// transaction: one prepared `UPDATE` per record, sent in pipeline mode 2,000 at a time, each
    /// result read and the total checked to be one row per record.
    func update(_ records: [WorkloadRecord]) {
        prepare(
            "update",
            "UPDATE record SET i1 = $1, i2 = $2, i3 = $3, d1 = $4, d2 = $5, d3 = $6, s1 = $7, s2 = $8, s3 = $9 "
                + "WHERE id = $10",
            types: [
                PostgresOID.int8, PostgresOID.int8, PostgresOID.int8, PostgresOID.float8, PostgresOID.float8,
                PostgresOID.float8, PostgresOID.text, PostgresOID.text, PostgresOID.text, PostgresOID.int8,
            ])
        exec("BEGIN")
        guard PQenterPipelineMode(connection) == 1 else { fail("pipeline mode") }
        var updated = 0
        // Batches with a sync point each, so that neither side's socket buffer fills while the
        // other waits (all within the one transaction).
        for start in stride(from: 0, to: records.count, by: 2_000) {
            let batch = records[start..<min(start + 2_000, records.count)]
            for r in batch { sendUpdate(r) }
            guard PQpipelineSync(connection) == 1 else { fail("pipeline sync") }
            for _ in batch {
                guard let result = PQgetResult(connection) else { fail("update result") }
                guard PQresultStatus(result) == PGRES_COMMAND_OK else { fail("update") }
                updated += Int(String(cString: PQcmdTuples(result))) ?? 0
                PQclear(result)
                // The NULL that ends each statement's results.
                precondition(PQgetResult(connection) == nil)
            }
            let sync = PQgetResult(connection)
            precondition(PQresultStatus(sync) == PGRES_PIPELINE_SYNC)
            PQclear(sync)
        }
        guard PQexitPipelineMode(connection) == 1 else { fail("pipeline exit") }
        exec("COMMIT")
        precondition(updated == records.count, "raw libpq: \(updated) of \(records.count) rows updated")
    }

    private func sendUpdate(_ r: WorkloadRecord) {
        var lengths = [Int32](repeating: 8, count: 10)
        let formats = [Int32](repeating: 1, count: 10)
        var buffer = BinaryWriter(capacity: 128)
        var offsets: [Int] = []
        for value in [r.i1, r.i2, r.i3] {
            offsets.append(buffer.bytes.count)
            buffer.int64(value)
        }
        for value in [r.d1, r.d2, r.d3] {
            offsets.append(buffer.bytes.count)
            buffer.int64(Int64(bitPattern: value.bitPattern))
        }
        for (index, value) in [r.s1, r.s2, r.s3].enumerated() {
            offsets.append(buffer.bytes.count)
            lengths[6 + index] = Int32(value.utf8.count)
            buffer.bytes += value.utf8
        }
        offsets.append(buffer.bytes.count)
        buffer.int64(r.id)
        let sent = buffer.bytes.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { base -> Int32 in
                let values: [UnsafePointer<CChar>?] = offsets.map { base.baseAddress! + $0 }
                return PQsendQueryPrepared(connection, "update", 10, values, lengths, formats, 1)
            }
        }
        guard sent == 1 else { fail("update") }
    }

    /// Deletes the records with `keys` in one transaction, as one `DELETE ... = ANY($1)`.
    func delete(_ keys: [Int64]) {
        prepare("delete", "DELETE FROM record WHERE id = ANY($1)", types: [PostgresOID.int8Array])
        var array = BinaryWriter(capacity: 20 + keys.count * 12)
        array.int32(1)
        array.int32(0)
        array.int32(Int32(PostgresOID.int8))
        array.int32(Int32(keys.count))
        array.int32(1)
        for key in keys {
            array.int32(8)
            array.int64(key)
        }
        exec("BEGIN")
        let result = array.bytes.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { value -> OpaquePointer? in
                var values: [UnsafePointer<CChar>?] = [value.baseAddress]
                var lengths: [Int32] = [Int32(value.count)]
                var formats: [Int32] = [1]
                return PQexecPrepared(connection, "delete", 1, &values, &lengths, &formats, 1)
            }
        }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { fail("delete") }
        let deleted = Int(String(cString: PQcmdTuples(result))) ?? 0
        PQclear(result)
        exec("COMMIT")
        precondition(deleted == keys.count, "raw libpq: \(deleted) of \(keys.count) rows deleted")
    }

    /// One integer from `sql` (a count or a sum), read as text.
    func integer(_ sql: String) -> Int64 {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK, PQntuples(result) == 1 else { fail(sql) }
        return Int64(String(cString: PQgetvalue(result, 0, 0))) ?? 0
    }
}

/// The type OIDs the raw side binds.
enum PostgresOID {
    static let int8: UInt32 = 20
    static let text: UInt32 = 25
    static let float8: UInt32 = 701
    static let int8Array: UInt32 = 1016
}

/// Big-endian bytes for binary parameters and binary `COPY`.
struct BinaryWriter {
    var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func int16(_ value: Int16) { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }
    mutating func int32(_ value: Int32) { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }
    mutating func int64(_ value: Int64) { withUnsafeBytes(of: value.bigEndian) { bytes += $0 } }

    /// A binary `COPY` field: its length, then its bytes.
    mutating func field(_ value: Int64) {
        int32(8)
        int64(value)
    }

    mutating func field(_ value: Double) {
        int32(8)
        int64(Int64(bitPattern: value.bitPattern))
    }

    mutating func field(_ value: String) {
        int32(Int32(value.utf8.count))
        bytes += value.utf8
    }
}
