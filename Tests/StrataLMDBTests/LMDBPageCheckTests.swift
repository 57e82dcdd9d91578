import CStrataLMDB
import Foundation
import StrataCore
@testable import StrataLMDB
import Testing
import StrataTestSupport

/// The page check (docs/Reliability.md, "Damaged LMDB files"): each kind of damaged page header
/// or node that would make liblmdb read out of bounds, abort or loop is refused at open with
/// `storeCorrupt` naming the page and the field, in this process. With `pageCheck=off` these
/// stores open (all but the page size of 0, which the always-on meta check refuses), and
/// liblmdb would read the damaged pages as they are at the first fetch.
@Suite("LMDB store: damaged pages are refused at open, never crashed on")
struct LMDBPageCheckTests {
    /// A store with two-level trees, overflow values and duplicates in sub-pages, closed.
    static func makeStore() throws -> String {
        let path = temporaryStorePath()
        let model = try companyModel()
        let store = try openStore(path)
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 600)
        // One department for all: its key has 600 duplicates in r:Employee:department, too many
        // for a sub-page, so they form a sub-database of their own.
        let departmentID = try store.obtainPermanentIDs(for: "Department", count: 1)[0]
        var snapshots = ids.map { employee($0, name: String(repeating: "n", count: 60) + "\($0.primaryKey!)", age: $0.primaryKey! % 200, department: departmentID, model: model) }
        // Two photos large enough for overflow pages.
        for index in [0, 1] { snapshots[index].attributes[5] = .binary(Data(repeating: UInt8(index + 1), count: 9_000)) }
        snapshots.append(department(departmentID, name: "all", employees: ids, model: model))
        try store.save(SaveRequest(inserts: snapshots))
        try store.close()
        return path
    }

    /// The data file, with the places to damage found by walking its pages.
    struct DataFile {
        let path: String
        var bytes: [UInt8]
        let pageSize: Int
        let metaSlot: Int
        let meta: LMDBMetaPage

        init(_ directory: String) throws {
            path = directory + "/data.mdb"
            bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let metas = bytes.withUnsafeBytes { raw in [LMDBMetaPage(raw.baseAddress!), LMDBMetaPage(raw.baseAddress! + LMDBMetaPage(raw.baseAddress!).pageSize)] }
            pageSize = metas[0].pageSize
            metaSlot = metas[1].transaction > metas[0].transaction ? 1 : 0
            meta = metas[metaSlot]
        }

        func offset(_ page: UInt64) -> Int { Int(page) * pageSize }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) } }
        mutating func set16(_ at: Int, _ value: UInt16) { bytes[at] = UInt8(value & 0xFF); bytes[at + 1] = UInt8(value >> 8) }
        mutating func set32(_ at: Int, _ value: UInt32) { for i in 0..<4 { bytes[at + i] = UInt8((value >> (8 * UInt32(i))) & 0xFF) } }
        mutating func set64(_ at: Int, _ value: UInt64) { for i in 0..<8 { bytes[at + i] = UInt8((value >> (8 * UInt64(i))) & 0xFF) } }

        /// The nodes of `page`: their offsets in the file.
        func nodes(_ page: UInt64) -> [Int] {
            let start = offset(page)
            let count = (Int(u16(start + 12)) - 16) / 2
            return (0..<count).map { start + Int(u16(start + 16 + 2 * $0)) }
        }

        /// The child page of a branch node.
        func child(_ node: Int) -> UInt64 { UInt64(u16(node)) | UInt64(u16(node + 2)) << 16 | UInt64(u16(node + 4)) << 32 }

        /// The leaf pages of the tree rooted at `root`, left to right.
        func leaves(_ root: UInt64) -> [UInt64] {
            let flags = u16(offset(root) + 10)
            if flags & LMDBPageFormat.branchPage == 0 { return [root] }
            return nodes(root).flatMap { leaves(child($0)) }
        }

        /// The record of the named database `name` (its node's data offset in the file).
        func record(_ name: String) throws -> (at: Int, record: LMDBDatabaseRecord) {
            for leaf in leaves(meta.main.root) {
                for node in nodes(leaf) where u16(node + 4) & LMDBPageFormat.subData != 0 {
                    let keySize = Int(u16(node + 6))
                    if String(decoding: bytes[(node + 8)..<(node + 8 + keySize)], as: UTF8.self) == name {
                        let at = node + 8 + keySize
                        return (at, bytes.withUnsafeBytes { LMDBDatabaseRecord($0.baseAddress! + at) })
                    }
                }
            }
            throw StrataError(.internalInconsistency, "no database \(name)")
        }

        func write() throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
    }

    /// Damages a fresh store with `damage`, opens it, and returns the error.
    func refusal(_ damage: (inout DataFile) throws -> Void, options: StoreOptions = StoreOptions()) throws -> StrataError? {
        let path = try Self.makeStore()
        defer { cleanUp(path) }
        var file = try DataFile(path)
        try damage(&file)
        try file.write()
        let error = #expect(throws: StrataError.self) { try openStore(path, options: options).close() }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.location["path"] == path)
        #expect(error?.location["file"] == path + "/data.mdb")
        return error
    }

    @Test func aHealthyStoreWithTallTreesOverflowAndDuplicatesOpensAndItsMetaPageIsReadAsLiblmdbReadsIt() throws {
        let path = try Self.makeStore()
        defer { cleanUp(path) }
        let file = try DataFile(path)
        let employees = try file.record("e:Employee").record
        #expect(employees.depth == 2, "the test needs a branch page")
        #expect(employees.overflowPages >= 6)
        #expect(employees.entries == 600)
        var sawSubPage = false
        for leaf in file.leaves(try file.record("i:Employee:byAge").record.root) {
            sawSubPage = sawSubPage || file.nodes(leaf).contains { file.u16($0 + 4) == LMDBPageFormat.dupData }
        }
        #expect(sawSubPage, "the test needs duplicates in a sub-page")
        let sources = try file.record("r:Employee:department").record
        let subDatabases = file.leaves(sources.root).flatMap { file.nodes($0) }.filter { file.u16($0 + 4) == LMDBPageFormat.dupData | LMDBPageFormat.subData }
        #expect(subDatabases.count == 1, "the test needs a duplicates sub-database")
        #expect(sources.entries == 600)
        // The parsed meta page agrees with liblmdb's own view.
        var env: OpaquePointer?
        try #require(mdb_env_create(&env) == 0)
        defer { mdb_env_close(env) }
        mdb_env_set_maxdbs(env, 64)
        try #require(mdb_env_open(env, path, UInt32(MDB_RDONLY), 0o600) == 0)
        var info = MDB_envinfo(), stat = MDB_stat()
        mdb_env_info(env, &info)
        mdb_env_stat(env, &stat)
        #expect(UInt64(info.me_last_pgno) == file.meta.lastPage)
        #expect(UInt64(info.me_last_txnid) == file.meta.transaction)
        #expect(Int(stat.ms_psize) == file.pageSize)
        #expect(Int(stat.ms_depth) == Int(file.meta.main.depth))
        #expect(Int(stat.ms_entries) == Int(file.meta.main.entries))
        let store = try openStore(path)
        defer { try? store.close() }
        #expect(try store.fetch(FetchRequest(entityName: "Employee", resultType: .count)).count() == 600)
    }

    @Test func aLeafPageWhoseLowerBoundIsBeyondItsUpperBoundIsRefused() throws {
        let error = try refusal { file in
            let leaf = file.leaves(try file.record("e:Employee").record.root)[1]
            file.set16(file.offset(leaf) + 12, UInt16(file.pageSize + 2))
        }
        #expect(error?.location["field"] == "mp_lower")
        #expect(error?.message.contains("mp_lower is") == true)
    }

    @Test func aLeafPageWhoseUpperBoundIsBeyondThePageIsRefused() throws {
        let error = try refusal { file in
            let leaf = file.leaves(try file.record("e:Employee").record.root)[2]
            file.set16(file.offset(leaf) + 14, UInt16(file.pageSize + 8))
        }
        #expect(error?.location["field"] == "mp_upper")
        #expect(error?.message.contains("beyond the end") == true)
    }

    @Test func aPageWhoseHeaderNamesAnotherPageNumberIsRefused() throws {
        var leaf: UInt64 = 0
        let error = try refusal { file in
            leaf = file.leaves(try file.record("e:Employee").record.root)[0]
            file.set64(file.offset(leaf), leaf + 1)
        }
        #expect(error?.location["page"] == String(leaf))
        #expect(error?.location["field"] == "mp_pgno")
        #expect(error?.location["value"] == String(leaf + 1))
    }

    @Test(arguments: [UInt16(0x03), 0x00, 0x04, 0x12, 0x22, 0x01])
    func aLeafPageWithFlagsItCannotHaveIsRefused(_ flags: UInt16) throws {
        let error = try refusal { file in
            let leaf = file.leaves(try file.record("e:Employee").record.root)[0]
            file.set16(file.offset(leaf) + 10, flags)
        }
        #expect(error?.location["field"] == "mp_flags")
        #expect(error?.location["value"] == "0x" + String(flags, radix: 16))
    }

    @Test(arguments: [UInt16(4094), 18, 0xFFFF, 1001])
    func aNodeOffsetOutsideThePagesNodeAreaIsRefused(_ offset: UInt16) throws {
        let error = try refusal { file in
            let leaf = file.leaves(try file.record("e:Employee").record.root)[0]
            file.set16(file.offset(leaf) + 16 + 2 * 3, offset)
        }
        #expect(error?.location["field"] == "mp_ptrs[3]")
        #expect(error?.location["value"] == String(offset))
    }

    @Test func aNodeWhoseKeyRunsPastThePageIsRefused() throws {
        let error = try refusal { file in
            let leaf = file.leaves(try file.record("e:Employee").record.root)[0]
            file.set16(file.nodes(leaf)[0] + 6, 5_000)
        }
        #expect(error?.location["field"] == "mp_ptrs[0] mn_ksize")
    }

    @Test func aNodeWhoseDataRunsPastThePageIsRefused() throws {
        let error = try refusal { file in
            let leaf = file.leaves(try file.record("e:Employee").record.root)[1]
            file.set16(file.nodes(leaf)[2] + 2, 3)
        }
        #expect(error?.location["field"] == "mp_ptrs[2] mn_lo/mn_hi")
    }

    @Test(arguments: [UInt64(1), 2, 1_000_000])
    func aChildPageBeyondTheEndOfTheSnapshotIsRefused(_ beyond: UInt64) throws {
        var value: UInt64 = 0
        let error = try refusal { file in
            let root = try file.record("e:Employee").record.root
            let node = file.nodes(root)[1]
            value = beyond == 1 ? 1 : file.meta.lastPage + beyond - 1
            file.set16(node, UInt16(value & 0xFFFF))
            file.set16(node + 2, UInt16((value >> 16) & 0xFFFF))
            file.set16(node + 4, UInt16(value >> 32))
        }
        #expect(error?.location["field"] == "mp_ptrs[1] child page number")
        #expect(error?.location["value"] == String(value))
    }

    @Test func aCycleBackToTheRootIsRefused() throws {
        var root: UInt64 = 0
        let error = try refusal { file in
            root = try file.record("e:Employee").record.root
            let node = file.nodes(root)[1]
            file.set16(node, UInt16(root & 0xFFFF))
            file.set16(node + 2, UInt16(root >> 16))
        }
        #expect(error?.location["page"] == String(root))
        #expect(error?.message.contains("reached a second time") == true)
    }

    @Test func aPageSharedByTwoParentsIsRefused() throws {
        let error = try refusal { file in
            let root = try file.record("e:Employee").record.root
            let nodes = file.nodes(root)
            for i in 0..<6 { file.bytes[nodes[1] + i] = file.bytes[nodes[0] + i] }
        }
        #expect(error?.message.contains("reached a second time") == true)
    }

    @Test func aBranchPageWithOneChildIsRefusedRatherThanTrippingLiblmdbsAssertion() throws {
        let error = try refusal { file in
            let root = try file.record("e:Employee").record.root
            file.set16(file.offset(root) + 12, 18)
        }
        #expect(error?.location["field"] == "mp_lower")
        #expect(error?.message.contains("at least 2") == true)
    }

    @Test func aDatabaseRecordWhoseRootIsBeyondTheEndOrWhoseDepthIsWrongIsRefused() throws {
        let root = try refusal { file in
            let at = try file.record("e:Employee").at
            file.set64(at + 40, file.meta.lastPage + 1)
        }
        #expect(root?.location["field"]?.hasSuffix("md_root") == true)
        let depth = try refusal { file in
            let at = try file.record("e:Employee").at
            file.set16(at + 6, 3)
        }
        #expect(depth?.location["field"] == "mp_flags", "a leaf found where depth 3 wants a branch")
        let shallow = try refusal { file in
            let at = try file.record("e:Employee").at
            file.set16(at + 6, 40)
        }
        #expect(shallow?.location["field"]?.hasSuffix("md_depth") == true)
    }

    @Test func anOverflowRunThatIsNotOneOrRunsPastTheEndIsRefused() throws {
        func overflowPage(_ file: DataFile) throws -> UInt64 {
            for leaf in file.leaves(try file.record("e:Employee").record.root) {
                for node in file.nodes(leaf) where file.u16(node + 4) == LMDBPageFormat.bigData {
                    return file.u64(node + 8 + Int(file.u16(node + 6)))
                }
            }
            throw StrataError(.internalInconsistency, "no overflow value")
        }
        let flags = try refusal { file in file.set16(file.offset(try overflowPage(file)) + 10, LMDBPageFormat.leafPage) }
        #expect(flags?.location["field"] == "mp_flags")
        #expect(flags?.message.contains("overflow page") == true)
        let pages = try refusal { file in file.set32(file.offset(try overflowPage(file)) + 12, 1_000_000) }
        #expect(pages?.location["field"] == "mp_pages")
    }

    @Test func aDamagedSubPageOfDuplicatesIsRefused() throws {
        func subPage(_ file: DataFile) throws -> Int {
            for leaf in file.leaves(try file.record("i:Employee:byAge").record.root) {
                for node in file.nodes(leaf) where file.u16(node + 4) == LMDBPageFormat.dupData {
                    return node + 8 + Int(file.u16(node + 6))
                }
            }
            throw StrataError(.internalInconsistency, "no sub-page")
        }
        let lower = try refusal { file in file.set16(try subPage(file) + 12, 900) }
        #expect(lower?.location["field"] == "mp_lower")
        #expect(lower?.message.contains("sub-page") == true)
        let flags = try refusal { file in file.set16(try subPage(file) + 10, LMDBPageFormat.branchPage) }
        #expect(flags?.location["field"]?.hasSuffix("sub-page mp_flags") == true)
    }

    @Test func aDamagedDuplicatesSubDatabaseIsRefused() throws {
        func subDatabase(_ file: DataFile) throws -> Int {
            for leaf in file.leaves(try file.record("r:Employee:department").record.root) {
                for node in file.nodes(leaf) where file.u16(node + 4) == LMDBPageFormat.dupData | LMDBPageFormat.subData {
                    return node + 8 + Int(file.u16(node + 6))
                }
            }
            throw StrataError(.internalInconsistency, "no duplicates sub-database")
        }
        let root = try refusal { file in file.set64(try subDatabase(file) + 40, 0) }
        #expect(root?.location["field"]?.hasSuffix("(a duplicates sub-database).md_root") == true)
        let flags = try refusal { file in file.set16(try subDatabase(file) + 4, LMDBPageFormat.dupSort) }
        #expect(flags?.location["field"]?.hasSuffix("md_flags") == true)
        let entries = try refusal { file in file.set64(try subDatabase(file) + 32, 599) }
        #expect(entries?.location["field"]?.hasSuffix("md_entries") == true)
    }

    @Test func aMetaPageWithPageSizeZeroIsRefusedBeforeLiblmdbDividesByIt() throws {
        let error = try refusal { file in
            file.set32(LMDBPageFormat.metaOffset + 24, 0)
        }
        #expect(error?.location["page"] == "0")
        #expect(error?.location["field"] == "mm_psize")
        #expect(error?.location["value"] == "0")
    }

    @Test func aRecordCountThatDisagreesWithItsTreeIsRefusedUnlessTheCheckIsOff() throws {
        let damage: (inout DataFile) throws -> Void = { file in
            let at = try file.record("e:Employee").at
            file.set64(at + 32, 601)
        }
        let error = try refusal(damage)
        #expect(error?.location["field"]?.hasSuffix("md_entries") == true)
        #expect(error?.location["value"] == "601")
        #expect(error?.message.contains("database e:Employee") == true)

        // pageCheck=off: liblmdb reads the file as it is (this damage does not crash it).
        let path = try Self.makeStore()
        defer { cleanUp(path) }
        var file = try DataFile(path)
        try damage(&file)
        try file.write()
        let store = try openStore(path, options: StoreOptions(options: ["pageCheck": "off"]))
        defer { try? store.close() }
        #expect(try store.fetch(FetchRequest(entityName: "Employee", resultType: .count)).count() == 601)
    }

    @Test func openingWhileAnotherProcessCommitsNeverMistakesItsPagesForDamage() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try ProbeModels.lmdb()
        try openStore(path, model: model).close()
        // The probe commits 300 saves of 40 items while this process opens the store again and
        // again: each open checks a snapshot other commits are replacing under it.
        let writer = Process()
        writer.executableURL = try builtExecutable("strata-lmdb-probe")
        writer.arguments = ["insert", path, "40", "300"]
        writer.standardOutput = FileHandle.nullDevice
        try writer.run()
        var opens = 0, counts: [Int] = []
        while writer.isRunning || opens == 0 {
            let store = try openStore(path, model: model)
            counts.append(try store.fetch(FetchRequest(entityName: "Item", resultType: .count)).count())
            try store.close()
            opens += 1
        }
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
        #expect(counts == counts.sorted(), "each open sees the same or a later snapshot")
        #expect(counts.allSatisfy { $0 % 40 == 0 })
        let store = try openStore(path, model: model)
        defer { try? store.close() }
        #expect(try store.fetch(FetchRequest(entityName: "Item", resultType: .count)).count() == 12_000)
        #expect(opens >= 1)
    }

    @Test func thePageCheckOptionAcceptsFullAndOffOnly() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        try openStore(path, options: StoreOptions(options: ["pageCheck": "full"])).close()
        let error = #expect(throws: StrataError.self) { try openStore(path, options: StoreOptions(options: ["pageCheck": "maybe"])) }
        #expect(error?.code == .invalidOption)
        #expect(error?.location["value"] == "maybe")
    }
}
