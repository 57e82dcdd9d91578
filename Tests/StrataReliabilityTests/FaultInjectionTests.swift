import CStrataSQLite
import Foundation
import StrataCore
@testable import StrataXML
import StrataTortureKit
import Testing

/// Failing writes, short writes, a full disk and failed fsyncs, injected below each persistent
/// store: every failed save is a typed error, and the store stays at its previous state.
@Suite struct FaultInjectionTests {
    struct SQLiteCase: CustomTestStringConvertible, Sendable {
        var operation: SQLiteFaultVFS.Operation
        var code: Int32
        var short: Bool
        var name: String
        var testDescription: String { name }
    }

    static let sqliteCases = [
        SQLiteCase(operation: .write, code: SQLITE_IOERR | (3 << 8), short: false, name: "write fails (EIO)"),
        SQLiteCase(operation: .write, code: SQLITE_FULL, short: true, name: "short write, disk full (ENOSPC)"),
        SQLiteCase(operation: .sync, code: SQLITE_IOERR | (4 << 8), short: false, name: "fsync fails"),
    ]

    @Test(arguments: sqliteCases)
    func aSQLiteSaveHittingAnIOErrorFailsTypedAndLeavesThePreviousState(_ fault: SQLiteCase) throws {
        let url = temporaryStoreURL("sqlite")
        let directory = (url.location as NSString).deletingLastPathComponent
        _ = SQLiteFaultVFS.registration
        let loop = FaultLoop(
            url: url, options: StoreOptions(options: ["vfs": SQLiteFaultVFS.name, "synchronous": "full"]), seed: 11,
            arm: { k in SQLiteFaultVFS.arm(.init(operation: fault.operation, countdown: k, code: fault.code, short: fault.short), directory: directory) },
            disarm: { SQLiteFaultVFS.disarm(directory: directory) },
            expectedCodes: [.io])
        let outcome = try loop.run(label: "sqlite, \(fault.name)")
        #expect(outcome.failedSaves > 0, "no save reached the fault")
        reportCount("faults sqlite \(fault.name): \(outcome.faults) faults injected, \(outcome.failedSaves) saves failed typed, \(outcome.absorbed) absorbed")
    }

    struct XMLCase: CustomTestStringConvertible, Sendable {
        var operation: XMLFileFaults.Operation
        var errorNumber: Int32
        var short: Bool
        var name: String
        var testDescription: String { name }
    }

    static let xmlCases = [
        XMLCase(operation: .write, errorNumber: EIO, short: false, name: "write fails (EIO)"),
        XMLCase(operation: .write, errorNumber: ENOSPC, short: true, name: "short write, disk full (ENOSPC)"),
        XMLCase(operation: .syncFile, errorNumber: EIO, short: false, name: "fsync of the new file fails"),
        XMLCase(operation: .rename, errorNumber: ENOSPC, short: false, name: "rename fails"),
        XMLCase(operation: .syncDirectory, errorNumber: EIO, short: false, name: "fsync of the directory fails"),
    ]

    @Test(arguments: xmlCases)
    func anXMLSaveHittingAnIOErrorFailsTypedAndLeavesThePreviousState(_ fault: XMLCase) throws {
        let url = temporaryStoreURL("xml")
        let directory = (url.location as NSString).deletingLastPathComponent
        let loop = FaultLoop(
            url: url, options: StoreOptions(), seed: 12,
            arm: { k in XMLFileFaults.arm(.init(operation: fault.operation, countdown: k, errorNumber: fault.errorNumber, short: fault.short), directory: directory) },
            disarm: { XMLFileFaults.disarm(directory: directory) },
            expectedCodes: [.io])
        let outcome = try loop.run(label: "xml, \(fault.name)")
        #expect(outcome.failedSaves > 0, "no save reached the fault")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "a failed save left \(leftovers)")
        reportCount("faults xml \(fault.name): \(outcome.faults) faults injected, \(outcome.failedSaves) saves failed typed")
    }

    @Test func anLMDBSaveThatOverflowsTheMapFailsTypedAndLeavesThePreviousState() throws {
        let url = temporaryStoreURL("lmdb")
        let options = StoreOptions(options: ["mapSize": String(1 << 20), "maxMapSize": String(1 << 20)])
        var store = try TortureStores.open(url, options: options)
        defer { try? store.close() }
        let driver = try TortureDriver.create(in: store, seed: 13)
        for _ in 0..<5 { try driver.saveNext() }
        let before = driver.state
        var faults = 0
        for count in [400, 1_000] {
            let ids = try store.obtainPermanentIDs(for: "Item", count: count)
            let payload = String(repeating: "m", count: 3_000)
            let inserts = ids.enumerated().map { index, id in
                Snapshot(objectID: id, version: 0, attributes: [.integer(Int64(100 + index)), .integer(0), .string("big"), .string(payload)], relationships: [.toOne(nil)])
            }
            #expect {
                try store.save(SaveRequest(inserts: inserts))
            } throws: { error in
                guard let error = error as? StrataError else { return false }
                faults += 1
                return error.code == .io && error.location["path"] == url.location && error.description.contains("map is full")
            }
            #expect(try TortureDriver.load(from: store, seed: 13).state == before)
        }
        try driver.saveNext()
        let after = driver.state
        try store.close()
        store = try TortureStores.open(url, options: options)
        #expect(try StoreIntegrity.check(url, store: store).isEmpty)
        #expect(try TortureDriver.load(from: store, seed: 13).state == after, "a save still fits after the failed ones")
        reportCount("faults lmdb map full: \(faults) faults injected, \(faults) saves failed typed")
    }

    @Test func anLMDBSaveBeyondTheFileSizeLimitFailsTypedAndLeavesThePreviousState() throws {
        let url = temporaryStoreURL("lmdb")
        let store = try TortureStores.open(url)
        let driver = try TortureDriver.create(in: store, seed: 14)
        for _ in 0..<5 { try driver.saveNext() }
        let before = driver.state
        try store.close()
        let size = try FileManager.default.attributesOfItem(atPath: url.location + "/data.mdb")[.size] as! Int
        let run = try runTorture(["lmdb-fill", url.location, String(size + 64 * 1024)])
        #expect(run.lines.first?.hasPrefix("error io") == true, "\(run.lines)")
        let reopened = try TortureStores.open(url)
        defer { try? reopened.close() }
        #expect(try StoreIntegrity.check(url, store: reopened).isEmpty)
        #expect(try TortureDriver.load(from: reopened, seed: 14).state == before)
        reportCount("faults lmdb file size limit (EFBIG): 1 fault injected, 1 save failed typed")
    }
}
