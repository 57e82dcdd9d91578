import BenchmarkSupport
import CStrataLMDB

/// W1–W5 through the raw LMDB C API: one named database keyed by 8-byte big-endian keys,
/// records in a compact binary form (3 × Int64, 3 × Double, 3 × length-prefixed strings),
/// default durability (fsync at commit), reused read transaction per workload.
final class RawLMDB {
    /// A decoded record (the workload's fields; `WorkloadRecord` has no public initializer).
    struct Record {
        var id: Int64
        var i1: Int64, i2: Int64, i3: Int64
        var d1: Double, d2: Double, d3: Double
        var s1: String, s2: String, s3: String

        init(
            id: Int64, i1: Int64, i2: Int64, i3: Int64, d1: Double, d2: Double, d3: Double, s1: String, s2: String,
            s3: String
        ) {
            self.id = id
            self.i1 = i1
            self.i2 = i2
            self.i3 = i3
            self.d1 = d1
            self.d2 = d2
            self.d3 = d3
            self.s1 = s1
            self.s2 = s2
            self.s3 = s3
        }

        init(_ r: WorkloadRecord) {
            self.init(
                id: r.id, i1: r.i1, i2: r.i2, i3: r.i3, d1: r.d1, d2: r.d2, d3: r.d3, s1: r.s1, s2: r.s2, s3: r.s3)
        }
    }

    private var env: OpaquePointer?
    private var dbi: MDB_dbi = 0
    private var buffer: [UInt8] = []

    init(path: String) {
        precondition(mdb_env_create(&env) == 0)
        mdb_env_set_maxdbs(env, 4)
        mdb_env_set_mapsize(env, 1 << 30)
        precondition(mdb_env_open(env, path, UInt32(MDB_NOTLS), 0o600) == 0, "mdb_env_open \(path)")
        var txn: OpaquePointer?
        mdb_txn_begin(env, nil, 0, &txn)
        mdb_dbi_open(txn, "records", UInt32(MDB_CREATE), &dbi)
        precondition(mdb_txn_commit(txn) == 0)
        buffer.reserveCapacity(256)
    }

    deinit { mdb_env_close(env) }

    private func encode(_ r: Record) {
        buffer.removeAll(keepingCapacity: true)
        func int(_ v: Int64) { withUnsafeBytes(of: v.littleEndian) { buffer.append(contentsOf: $0) } }
        func double(_ v: Double) { withUnsafeBytes(of: v.bitPattern.littleEndian) { buffer.append(contentsOf: $0) } }
        func string(_ s: String) {
            var s = s
            s.withUTF8 { utf8 in
                buffer.append(UInt8(utf8.count))
                buffer.append(contentsOf: utf8)
            }
        }
        int(r.i1)
        int(r.i2)
        int(r.i3)
        double(r.d1)
        double(r.d2)
        double(r.d3)
        string(r.s1)
        string(r.s2)
        string(r.s3)
    }

    @inline(__always)
    private func decode(_ id: Int64, _ bytes: UnsafeRawBufferPointer) -> Record {
        let base = bytes.baseAddress!
        @inline(__always) func int(_ at: Int) -> Int64 {
            Int64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: Int64.self))
        }
        @inline(__always) func double(_ at: Int) -> Double {
            Double(bitPattern: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
        }
        let c1 = Int(base.load(fromByteOffset: 48, as: UInt8.self))
        let s1 = String(decoding: UnsafeRawBufferPointer(start: base + 49, count: c1), as: UTF8.self)
        let o2 = 49 + c1
        let c2 = Int(base.load(fromByteOffset: o2, as: UInt8.self))
        let s2 = String(decoding: UnsafeRawBufferPointer(start: base + o2 + 1, count: c2), as: UTF8.self)
        let o3 = o2 + 1 + c2
        let c3 = Int(base.load(fromByteOffset: o3, as: UInt8.self))
        let s3 = String(decoding: UnsafeRawBufferPointer(start: base + o3 + 1, count: c3), as: UTF8.self)
        return Record(
            id: id, i1: int(0), i2: int(8), i3: int(16), d1: double(24), d2: double(32), d3: double(40), s1: s1, s2: s2,
            s3: s3)
    }

    private func withKey<R>(_ id: Int64, _ body: (inout MDB_val) -> R) -> R {
        var key = UInt64(bitPattern: id).bigEndian
        return withUnsafeMutableBytes(of: &key) { raw in
            var k = MDB_val(mv_size: 8, mv_data: raw.baseAddress)
            return body(&k)
        }
    }

    private func write(_ body: (OpaquePointer?) -> Void) {
        var txn: OpaquePointer?
        precondition(mdb_txn_begin(env, nil, 0, &txn) == 0)
        body(txn)
        precondition(mdb_txn_commit(txn) == 0)
    }

    private func read<R>(_ body: (OpaquePointer?) -> R) -> R {
        var txn: OpaquePointer?
        precondition(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn) == 0)
        defer { mdb_txn_abort(txn) }
        return body(txn)
    }

    /// W1: insert every record, one commit.
    func insertAll(_ records: [WorkloadRecord]) {
        write { txn in
            for r in records {
                encode(Record(r))
                withKey(r.id) { k in
                    buffer.withUnsafeMutableBytes { data in
                        var v = MDB_val(mv_size: data.count, mv_data: data.baseAddress)
                        precondition(mdb_put(txn, dbi, &k, &v, 0) == 0)
                    }
                }
            }
        }
    }

    /// W2: every record, decoded.
    func fetchAll() -> [Record] {
        read { txn in
            var out: [Record] = []
            var stat = MDB_stat()
            mdb_stat(txn, dbi, &stat)
            out.reserveCapacity(stat.ms_entries)
            var cursor: OpaquePointer?
            mdb_cursor_open(txn, dbi, &cursor)
            defer { mdb_cursor_close(cursor) }
            var k = MDB_val()
            var v = MDB_val()
            var op = MDB_FIRST
            while mdb_cursor_get(cursor, &k, &v, op) == 0 {
                let id = Int64(bitPattern: UInt64(bigEndian: k.mv_data.loadUnaligned(as: UInt64.self)))
                out.append(decode(id, UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)))
                op = MDB_NEXT
            }
            return out
        }
    }

    /// W3: look up each key, decoded.
    func lookup(_ keys: [Int64]) -> Int64 {
        read { txn in
            var sum: Int64 = 0
            for id in keys {
                withKey(id) { k in
                    var v = MDB_val()
                    precondition(mdb_get(txn, dbi, &k, &v) == 0)
                    sum &+= decode(id, UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)).i1
                }
            }
            return sum
        }
    }

    /// W4: read, change and rewrite each record, one commit.
    func update(_ keys: [Int64]) {
        write { txn in
            for id in keys {
                withKey(id) { k in
                    var v = MDB_val()
                    precondition(mdb_get(txn, dbi, &k, &v) == 0)
                    var r = decode(id, UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
                    r.i1 += 1
                    r.s1 = "updated"
                    encode(r)
                    buffer.withUnsafeMutableBytes { data in
                        var nv = MDB_val(mv_size: data.count, mv_data: data.baseAddress)
                        precondition(mdb_put(txn, dbi, &k, &nv, 0) == 0)
                    }
                }
            }
        }
    }

    /// W5: delete each record, one commit.
    func delete(_ keys: [Int64]) {
        write { txn in
            for id in keys {
                withKey(id) { k in precondition(mdb_del(txn, dbi, &k, nil) == 0) }
            }
        }
    }
}
