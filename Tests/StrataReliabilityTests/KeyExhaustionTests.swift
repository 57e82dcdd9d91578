import CStrataLMDB
import CStrataSQLite
import Foundation
import StrataCore
import StrataTortureKit
import Testing

/// A store whose key sequence was pushed to the end of `Int64` (a hand-edited or hostile file):
/// the last key is still handed out, and then every request is a typed error, never a trap.
@Suite struct KeyExhaustionTests {
    /// Sets the last key handed out for `Item` to `last`, below the store's API.
    static func setLastItemKey(_ url: StoreURL, to last: Int64) throws {
        switch url.scheme {
        case "sqlite":
            var db: OpaquePointer?
            defer { sqlite3_close_v2(db) }
            try #require(sqlite3_open_v2(url.location, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
            try #require(
                sqlite3_exec(
                    db,
                    "INSERT OR REPLACE INTO \"_strata_sequence\" (\"entity\", \"lastKey\") VALUES ('Item', \(last))",
                    nil, nil, nil) == SQLITE_OK)
        case "lmdb":
            var env: OpaquePointer?
            try #require(mdb_env_create(&env) == 0)
            defer { mdb_env_close(env) }
            mdb_env_set_maxdbs(env, 64)
            try #require(mdb_env_open(env, url.location, 0, 0o600) == 0)
            var txn: OpaquePointer?
            try #require(mdb_txn_begin(env, nil, 0, &txn) == 0)
            var dbi: MDB_dbi = 0
            try #require(mdb_dbi_open(txn, "_seq", 0, &dbi) == 0)
            var key = Array("Item".utf8)
            var value = UInt64(bitPattern: last).bigEndian
            try key.withUnsafeMutableBytes { keyBytes in
                try withUnsafeMutableBytes(of: &value) { valueBytes in
                    var k = MDB_val(mv_size: keyBytes.count, mv_data: keyBytes.baseAddress)
                    var v = MDB_val(mv_size: 8, mv_data: valueBytes.baseAddress)
                    try #require(mdb_put(txn, dbi, &k, &v, 0) == 0)
                }
            }
            try #require(mdb_txn_commit(txn) == 0)
        default:
            // The XML file holds the next key to hand out.
            let text = try String(contentsOfFile: url.location, encoding: .utf8)
            let edited = text.replacingOccurrences(
                of: "<_sequence entity=\"Item\" next=\"1\"/>", with: "<_sequence entity=\"Item\" next=\"\(last + 1)\"/>"
            )
            try #require(edited != text)
            try edited.write(toFile: url.location, atomically: true, encoding: .utf8)
        }
    }

    @Test(arguments: TortureStores.schemes)
    func theLastKeyIsHandedOutAndThenExhaustionIsATypedError(_ scheme: String) throws {
        let url = temporaryStoreURL(scheme)
        let creating = try TortureStores.open(url)
        _ = try TortureDriver.create(in: creating, seed: 51)
        try creating.close()
        // XML: the next key is last + 1, so stop one short of Int64.max to keep it representable.
        try Self.setLastItemKey(url, to: scheme == "xml" ? Int64.max - 2 : Int64.max - 1)

        let store = try TortureStores.open(url)
        defer { try? store.close() }
        let ids = try store.obtainPermanentIDs(for: "Item", count: 1)
        #expect(ids.map(\.primaryKey) == [scheme == "xml" ? Int64.max - 1 : Int64.max])
        for count in [1, 2, Int.max] {
            #expect {
                _ = try store.obtainPermanentIDs(for: "Item", count: count)
            } throws: { error in
                (error as? StrataError).map {
                    [.internalInconsistency, .invalidRequest, .unsupported].contains($0.code)
                } ?? false
            }
        }
    }
}
