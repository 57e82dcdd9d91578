import BenchmarkSupport
import CStrataSQLite
import Foundation
import StrataCore
import StrataSQLite

/// Lookups by an indexed key attribute through the store protocol,
/// `FetchRequest(entityName: "Item", predicate: .key("key") == k, limit: 1)`, against the raw C API
/// (`SELECT ... WHERE key = ? LIMIT 1` through one prepared statement). Synchronous, so it runs
/// under valgrind: `SQLiteBenchmarks keylookup strata|raw [records] [lookups]`. Run it with 0
/// lookups as well and subtract, to count the lookups' instructions alone.
enum KeyLookups {
    static let model: Model = {
        var attributes = [Attribute("key", .integer64)]
        attributes += ["i1", "i2", "i3"].map { Attribute($0, .integer64) }
        attributes += ["d1", "d2", "d3"].map { Attribute($0, .double) }
        attributes += ["s1", "s2", "s3"].map { Attribute($0, .string) }
        return try! Model(
            versionIdentifier: "keylookup",
            entities: [
                Entity("Item", attributes: attributes, indexes: [Entity.Index(name: "byKey", properties: ["key"])])
            ]
        )
    }()

    /// The key attribute's value of record `id`: unrelated to the primary key.
    static func key(_ id: Int64) -> Int64 { id &* 7_919 % 1_000_003 }

    static func run(_ arguments: [String], directory: String) throws {
        let subject = arguments.count > 2 ? arguments[2] : "strata"
        let records = arguments.count > 3 ? Int(arguments[3]) ?? 100_000 : 100_000
        let lookups = arguments.count > 4 ? Int(arguments[4]) ?? 100_000 : 100_000
        let workload = Workload(count: records)
        let keys = workload.lookupKeys.prefix(lookups).map(key)
        var found = 0
        let elapsed: Double
        if subject == "raw" {
            let raw = RawKeyLookups(path: "\(directory)/raw-keys.sqlite", records: workload.records)
            elapsed = milliseconds {
                for k in keys { found += raw.lookup(k) }
            }
        } else {
            let url = StoreURL(scheme: "sqlite", location: "\(directory)/strata-keys.sqlite")
            let store = try SQLiteBackend().open(url, model: model, options: StoreOptions())
            let ids = try store.obtainPermanentIDs(for: "Item", count: records)
            var inserts: [Snapshot] = []
            inserts.reserveCapacity(records)
            for (id, r) in zip(ids, workload.records) {
                let attributes: [Value] = [
                    .integer(key(r.id)), .integer(r.i1), .integer(r.i2), .integer(r.i3), .double(r.d1), .double(r.d2),
                    .double(r.d3), .string(r.s1), .string(r.s2), .string(r.s3),
                ]
                inserts.append(Snapshot(objectID: id, version: 0, attributes: attributes, relationships: []))
            }
            try store.save(SaveRequest(inserts: inserts))
            elapsed = try milliseconds {
                for k in keys {
                    let request = FetchRequest(entityName: "Item", predicate: .key("key") == k, limit: 1)
                    found += try store.fetch(request).snapshots().count
                }
            }
            try store.close()
        }
        precondition(found == keys.count)
        print("keylookup \(subject): \(records) records, \(keys.count) lookups in \(format(elapsed)) ms")
    }
}

/// The raw side of ``KeyLookups``: the same rows, one prepared statement.
final class RawKeyLookups {
    let db: OpaquePointer
    let select: OpaquePointer

    init(path: String, records: [WorkloadRecord]) {
        let raw = RawSQLite(path: path)
        raw.exec("ALTER TABLE record ADD COLUMN key INTEGER")
        raw.insert(records)
        raw.exec("UPDATE record SET key = id * 7919 % 1000003")
        raw.exec("CREATE INDEX record_key ON record (key)")
        db = raw.db
        var statement: OpaquePointer?
        sqlite3_prepare_v2(
            db, "SELECT id, key, i1, i2, i3, d1, d2, d3, s1, s2, s3 FROM record WHERE key = ? LIMIT 1", -1, &statement,
            nil)
        select = statement!
        keep = raw
    }

    private let keep: RawSQLite

    /// 1 when a row has key `k` (its columns read as the store reads them), else 0.
    func lookup(_ k: Int64) -> Int {
        sqlite3_bind_int64(select, 1, k)
        defer { sqlite3_reset(select) }
        guard sqlite3_step(select) == SQLITE_ROW else { return 0 }
        let record = RawRecord(
            id: sqlite3_column_int64(select, 0), i1: sqlite3_column_int64(select, 2),
            i2: sqlite3_column_int64(select, 3), i3: sqlite3_column_int64(select, 4),
            d1: sqlite3_column_double(select, 5), d2: sqlite3_column_double(select, 6),
            d3: sqlite3_column_double(select, 7), s1: keep.text(select, 8), s2: keep.text(select, 9),
            s3: keep.text(select, 10))
        return record.id > 0 && sqlite3_column_int64(select, 1) == k ? 1 : 0
    }
}
