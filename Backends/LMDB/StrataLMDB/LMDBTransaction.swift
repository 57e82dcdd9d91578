import CStrataLMDB

/// A thin, non-owning view of an `MDB_txn` with the few calls the store makes.
///
/// Byte views it returns point into the memory map and are valid only until the transaction
/// ends or (for write transactions) the next change.
struct LMDBTransaction {
    /// The transaction handle.
    let handle: OpaquePointer

    /// The unnamed main database, which names the others.
    static let mainDatabase: MDB_dbi = 1

    /// The value stored under `key`, or `nil`.
    @inline(__always)
    func get(_ dbi: MDB_dbi, key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val()
        let code = mdb_get(handle, dbi, &k, &v)
        if code == MDB_NOTFOUND { return nil }
        try check(code, "mdb_get")
        return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
    }

    /// Stores `value` under `key`. Returns `false` when `MDB_NOOVERWRITE` or `MDB_NODUPDATA`
    /// was given and the key (or pair) already exists.
    @inline(__always) @discardableResult
    func put(_ dbi: MDB_dbi, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: UInt32 = 0) throws
        -> Bool
    {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        let code = mdb_put(handle, dbi, &k, &v, flags)
        if code == MDB_KEYEXIST { return false }
        try check(code, "mdb_put")
        return true
    }

    /// Deletes `key` (only the pair `key`/`value` in a sorted-duplicates database when `value`
    /// is given). Returns whether something was deleted.
    @inline(__always) @discardableResult
    func delete(_ dbi: MDB_dbi, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer? = nil) throws -> Bool {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        let code: Int32
        if let value {
            var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
            code = mdb_del(handle, dbi, &k, &v)
        } else {
            code = mdb_del(handle, dbi, &k, nil)
        }
        if code == MDB_NOTFOUND { return false }
        try check(code, "mdb_del")
        return true
    }

    /// The number of entries of `dbi`.
    func count(_ dbi: MDB_dbi) throws -> Int {
        var stat = MDB_stat()
        try check(mdb_stat(handle, dbi, &stat), "mdb_stat")
        return stat.ms_entries
    }

    /// Opens a cursor on `dbi`; close it with ``LMDBCursor/close()``.
    func cursor(_ dbi: MDB_dbi) throws -> LMDBCursor {
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(handle, dbi, &cursor), "mdb_cursor_open")
        guard let cursor else { throw LMDBFailure(code: MDB_BAD_TXN, call: "mdb_cursor_open") }
        return LMDBCursor(handle: cursor)
    }
}

/// A thin, non-owning view of an `MDB_cursor`.
struct LMDBCursor {
    /// The cursor handle.
    let handle: OpaquePointer

    /// A key and value, pointing into the map.
    typealias Entry = (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)

    /// Positions the cursor with `op` (`MDB_FIRST`, `MDB_NEXT`, ...) and returns the entry there,
    /// or `nil` at the end.
    @inline(__always)
    func move(_ op: MDB_cursor_op) throws -> Entry? {
        var k = MDB_val()
        var v = MDB_val()
        let code = mdb_cursor_get(handle, &k, &v, op)
        if code == MDB_NOTFOUND { return nil }
        try check(code, "mdb_cursor_get")
        return (
            UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size),
            UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
        )
    }

    /// Positions the cursor at the first key greater than or equal to `key` (`MDB_SET_RANGE`).
    @inline(__always)
    func seek(atLeast key: UnsafeRawBufferPointer) throws -> Entry? {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val()
        let code = mdb_cursor_get(handle, &k, &v, MDB_SET_RANGE)
        if code == MDB_NOTFOUND { return nil }
        try check(code, "mdb_cursor_get")
        return (
            UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size),
            UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
        )
    }

    /// Positions the cursor at exactly `key` (`MDB_SET_KEY`) and returns the value there, or
    /// `nil` (the cursor is then unpositioned).
    @inline(__always)
    func seek(exactly key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val()
        let code = mdb_cursor_get(handle, &k, &v, MDB_SET_KEY)
        if code == MDB_NOTFOUND { return nil }
        try check(code, "mdb_cursor_get")
        return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
    }

    /// Deletes the entry the cursor is at (`mdb_cursor_del`), in a write transaction.
    @inline(__always)
    func deleteCurrent() throws {
        try check(mdb_cursor_del(handle, 0), "mdb_cursor_del")
    }

    /// Closes the cursor.
    func close() { mdb_cursor_close(handle) }
}

/// Primary keys as LMDB keys: 8 bytes, big-endian, with the sign bit flipped so that the
/// byte order of keys is the numeric order of signed keys (1 is `80 00 00 00 00 00 00 01`).
enum PrimaryKey {
    /// The key bytes of `pk`, as a `UInt64` whose memory is big-endian.
    @inline(__always)
    static func encode(_ pk: Int64) -> UInt64 {
        (UInt64(bitPattern: pk) ^ (1 << 63)).bigEndian
    }

    /// The primary key in `bytes`, or `nil` when they are not 8 bytes.
    @inline(__always)
    static func decode(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard bytes.count == 8 else { return nil }
        let raw = UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self))
        return Int64(bitPattern: raw ^ (1 << 63))
    }

    /// Calls `body` with the key bytes of `pk`.
    @inline(__always)
    static func withKey<R>(_ pk: Int64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var encoded = encode(pk)
        return try withUnsafeBytes(of: &encoded) { try body($0) }
    }
}
