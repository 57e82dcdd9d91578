import CStrataLMDB
import Foundation
import StrataCore
import StrataLMDB
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("LMDB store: bad input gives typed errors naming the path and cause")
struct LMDBBadInputTests {
    @Test func aDirectoryThatIsNotAnLMDBEnvironmentIsRefusedAndLeftAlone() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path + "/notes.txt"))
        let error = #expect(throws: StrataError.self) { try openStore(path) }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.location["path"] == path)
        #expect(error?.message.contains("not an LMDB environment") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: path) == ["notes.txt"], "nothing was created")
    }

    @Test func aFileWhereTheDirectoryShouldBeIsRefused() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: StrataError.self) { try openStore(path) }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.message.contains(path) == true)
    }

    @Test func aCorruptDataFileIsReportedNotCrashedOn() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        let store = try openStore(path)
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 1)
        try store.save(SaveRequest(inserts: [employee(ids[0], name: "a", age: 1, model: model)]))
        try store.close()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path + "/data.mdb"))
        try handle.write(contentsOf: Data(repeating: 0xAB, count: 8192))
        try handle.close()
        let error = #expect(throws: StrataError.self) { try openStore(path) }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.location["path"] == path)
        #expect(error?.underlying != nil, "the cause (the damaged field and its value) is kept")

        let garbage = temporaryStorePath("garbage")
        defer { cleanUp(garbage) }
        try FileManager.default.createDirectory(atPath: garbage, withIntermediateDirectories: true)
        try Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(
            to: URL(fileURLWithPath: garbage + "/data.mdb"))
        #expect((#expect(throws: StrataError.self) { try openStore(garbage) })?.code == .storeCorrupt)
    }

    @Test func aTruncatedDataFileIsRefusedBeforeAnyPageIsRead() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        let store = try openStore(path)
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 2_000)
        try store.save(
            SaveRequest(
                inserts: ids.map {
                    employee($0, name: String(repeating: "t", count: 100) + "\($0.primaryKey!)", age: 9, model: model)
                }))
        try store.close()
        let file = path + "/data.mdb"
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        #expect(truncate(file, off_t(size / 2)) == 0)
        let error = #expect(throws: StrataError.self) { try openStore(path) }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.message.contains("truncated") == true)
        #expect(error?.location["path"] == path)
    }

    @Test func aRecordWithAnUnknownEncodingVersionIsATypedErrorNamingEntityAndKey() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        var store = try openStore(path)
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 2)
        try store.save(SaveRequest(inserts: ids.map { employee($0, name: "v\($0.primaryKey!)", age: 5, model: model) }))
        try store.close()
        try rewriteFirstByte(path: path, database: "e:Employee", primaryKey: ids[1].primaryKey!, to: 99)

        store = try openStore(path)
        defer { try? store.close() }
        let error = #expect(throws: StrataError.self) { try store.fetch(FetchRequest(entityName: "Employee")) }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.location["entity"] == "Employee")
        #expect(error?.location["key"] == String(ids[1].primaryKey!))
        #expect(error?.location["path"] == path)
        #expect(error?.message.contains("encoding version is 99") == true)
        // The readable object is still readable, and a save touching the bad one writes nothing.
        #expect(try store.fetch(FetchRequest(entityName: "Employee", objectIDs: [ids[0]])).snapshots().count == 1)
        let save = #expect(throws: StrataError.self) {
            try store.save(
                SaveRequest(
                    updates: [
                        .init(employee(ids[0], name: "changed", age: 6, model: model), expectedVersion: 1),
                        .init(employee(ids[1], name: "changed too", age: 6, model: model), expectedVersion: 1),
                    ]))
        }
        #expect(save?.code == .storeCorrupt)
        #expect(
            try store.fetch(FetchRequest(entityName: "Employee", objectIDs: [ids[0]])).snapshots().first?.attributes[0]
                == .string("v\(ids[0].primaryKey!)"))
    }

    @Test func aPathWithoutPermissionIsAnIOErrorNamingThePath() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        try openStore(path).close()
        if geteuid() == 0 {
            // Root ignores permission bits: ask the probe to drop to nobody first.
            chmod(URL(fileURLWithPath: path).deletingLastPathComponent().path, 0o755)
            let output = try runProbe(["open", path, "--as-nobody"])
            #expect(output.output.hasPrefix("error io "), "\(output.output) \(output.errors)")
            #expect(output.output.contains(path))
            #expect(output.output.contains("Permission denied"))
        } else {
            chmod(path, 0o000)
            let error = #expect(throws: StrataError.self) { try openStore(path) }
            #expect(error?.code == .io)
            #expect(error?.message.contains(path) == true)
            #expect(error?.underlying == String(cString: strerror(EACCES)))
        }
    }

    @Test func newFilesAreReadableOnlyByTheOwner() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        try openStore(path).close()
        for file in ["data.mdb", "lock.mdb"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path + "/" + file)
            #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o600, "\(file)")
        }
        let directory = try FileManager.default.attributesOfItem(atPath: path)
        #expect((directory[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o700)
    }

    @Test func anLMDBEnvironmentThatIsNotAStrataStoreIsRefused() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        var env: OpaquePointer?
        #expect(mdb_env_create(&env) == 0)
        mdb_env_set_maxdbs(env, 4)
        #expect(mdb_env_open(env, path, 0, 0o600) == 0)
        var txn: OpaquePointer?
        mdb_txn_begin(env, nil, 0, &txn)
        var dbi: MDB_dbi = 0
        mdb_dbi_open(txn, "someone-else", UInt32(MDB_CREATE), &dbi)
        #expect(mdb_txn_commit(txn) == 0)
        mdb_env_close(env)
        let error = #expect(throws: StrataError.self) { try openStore(path) }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.message.contains("not a Strata store") == true)
    }

    /// Rewrites the first byte of one record with the raw LMDB API.
    private func rewriteFirstByte(path: String, database: String, primaryKey: Int64, to byte: UInt8) throws {
        var env: OpaquePointer?
        try #require(mdb_env_create(&env) == 0)
        defer { mdb_env_close(env) }
        mdb_env_set_maxdbs(env, 64)
        try #require(mdb_env_open(env, path, 0, 0o600) == 0)
        var txn: OpaquePointer?
        try #require(mdb_txn_begin(env, nil, 0, &txn) == 0)
        var dbi: MDB_dbi = 0
        try #require(mdb_dbi_open(txn, database, 0, &dbi) == 0)
        var key = (UInt64(bitPattern: primaryKey) ^ (1 << 63)).bigEndian
        var record: [UInt8] = []
        try withUnsafeMutableBytes(of: &key) { keyBytes in
            var k = MDB_val(mv_size: 8, mv_data: keyBytes.baseAddress)
            var v = MDB_val()
            try #require(mdb_get(txn, dbi, &k, &v) == 0)
            record = Array(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
            record[0] = byte
            try record.withUnsafeMutableBytes { bytes in
                var value = MDB_val(mv_size: bytes.count, mv_data: bytes.baseAddress)
                try #require(mdb_put(txn, dbi, &k, &value, 0) == 0)
            }
        }
        try #require(mdb_txn_commit(txn) == 0)
    }
}
