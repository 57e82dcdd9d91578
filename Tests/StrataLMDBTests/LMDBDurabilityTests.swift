import Foundation
import StrataCore
import StrataLMDB
import StrataTestSupport
import Testing

/// The `durability` option (and its LMDB spelling `sync`) reaches the environment's flags.
@Suite struct LMDBDurabilityTests {
    /// Opens a store with `options`, returns what its commits flush, and closes it.
    private func flushes(_ options: [String: String]) throws -> (dataPages: Bool, metaPage: Bool) {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try openStore(path, options: StoreOptions(options: options))
        defer { try? store.close() }
        return store.commitFlushes
    }

    @Test func theDefaultFlushesTheDataPagesButNotTheMetaPageAtCommit() throws {
        let flushed = try flushes([:])
        #expect(flushed.dataPages && !flushed.metaPage)
    }

    @Test func durabilityNormalIsTheDefault() throws {
        let flushed = try flushes(["durability": "normal"])
        #expect(flushed.dataPages && !flushed.metaPage)
    }

    @Test func durabilityFullFlushesTheMetaPageToo() throws {
        let flushed = try flushes(["durability": "full"])
        #expect(flushed.dataPages && flushed.metaPage)
    }

    @Test(arguments: [("full", true), ("nometasync", false)])
    func theSyncSpellingStillWorks(_ sync: String, flushesMeta: Bool) throws {
        let flushed = try flushes(["sync": sync])
        #expect(flushed.dataPages && flushed.metaPage == flushesMeta)
    }

    @Test(arguments: [["durability": "full", "sync": "full"], ["durability": "normal", "sync": "nometasync"]])
    func agreeingDurabilityAndSyncAreAccepted(_ options: [String: String]) throws {
        let flushed = try flushes(options)
        #expect(flushed.metaPage == (options["durability"] == "full"))
    }

    @Test(arguments: [
        ["durability": "full", "sync": "nometasync"], ["durability": "normal", "sync": "full"],
        ["durability": "normal", "sync": "nosync"], ["durability": "off"], ["durability": "NORMAL"],
    ])
    func aDurabilityThatCannotBeHonouredIsRefused(_ options: [String: String]) throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let error = #expect(throws: StrataError.self) { try openStore(path, options: StoreOptions(options: options)) }
        #expect(error?.code == .invalidOption)
        #expect(error?.location["backend"] == "lmdb")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func savesOfANormalStoreAreThereAfterReopening() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        var store = try openStore(path, model: model)
        let ids = try store.obtainPermanentIDs(for: "Department", count: 3)
        for (index, id) in ids.enumerated() {
            try store.save(SaveRequest(inserts: [department(id, name: "D\(index)", model: model)]))
        }
        try store.close()
        store = try openStore(path, model: model, options: StoreOptions(options: ["durability": "full"]))
        defer { try? store.close() }
        let names = try store.fetch(FetchRequest(entityName: "Department")).snapshots().map { $0.attributes[0] }
        #expect(names == [.string("D0"), .string("D1"), .string("D2")])
        #expect(store.commitFlushes.metaPage)
    }
}

/// Two stores of one process share the directory's environment: the stronger durability asked
/// for applies to both, never the weaker.
@Suite struct LMDBSharedDurabilityTests {
    @Test func aSecondOpenerAskingForFullDurabilityGetsIt() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let first = try openStore(path, options: StoreOptions(options: ["durability": "normal"]))
        defer { try? first.close() }
        #expect(!first.commitFlushes.metaPage)
        let second = try openStore(path, options: StoreOptions(options: ["durability": "full"]))
        defer { try? second.close() }
        #expect(second.commitFlushes.dataPages && second.commitFlushes.metaPage)
        #expect(first.commitFlushes.metaPage)
    }

    @Test func aSecondOpenerAskingForLessDoesNotWeakenTheFirst() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let first = try openStore(path, options: StoreOptions(options: ["durability": "full"]))
        defer { try? first.close() }
        let second = try openStore(path, options: StoreOptions(options: ["sync": "nosync"]))
        defer { try? second.close() }
        #expect(first.commitFlushes.dataPages && first.commitFlushes.metaPage)
        #expect(second.commitFlushes.dataPages && second.commitFlushes.metaPage)
    }
}
