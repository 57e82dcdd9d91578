import Foundation
import StrataCore
import StrataLMDB
import StrataTestSupport
import Synchronization
import Testing

/// Putting a staged LMDB store (a directory) in place of another: the two directories are
/// swapped in one step, so that a process watching the store's path, or one killed meanwhile,
/// finds the old store or the new one there, never neither (a directory cannot be renamed over a
/// full one; removing the old one first left a moment with no store at all).
@Suite struct LMDBStagingSwapTests {
    @Test func aStagedStoreReplacesADirectoryStoreWithNoMomentWithoutOne() throws {
        let path = temporaryStorePath("swapped")
        defer { cleanUp(path) }
        let url = StoreURL(scheme: "lmdb", location: path)
        let backend = LMDBBackend()
        let model = try companyModel()
        func make(_ at: StoreURL, identifier: String) throws {
            let store = try backend.open(at, model: model, options: StoreOptions(identifierForNewStore: identifier))
            try store.close()
        }
        try make(url, identifier: "OLD-0")
        let missing = Atomic<Int>(0)
        let watching = Atomic<Bool>(true)
        let watcher = Thread {
            while watching.load(ordering: .relaxed) {
                if access(path, F_OK) != 0 { missing.add(1, ordering: .relaxed) }
            }
        }
        watcher.start()
        defer { watching.store(false, ordering: .relaxed) }
        for round in 1...40 {
            let staging = try StoreStaging(for: url, backend: backend, suffix: ".strata-copying")
            let found = StoreStaging.FileIdentity(path: staging.url.location)
            try staging.removeStaging()
            try make(staging.staging, identifier: "NEW-\(round)")
            try staging.putInPlace(expected: (found, StoreStaging.FileIdentity(path: staging.staging.location)))
            #expect(try backend.metadata(at: url)?.storeIdentifier == "NEW-\(round)")
            #expect(!FileManager.default.fileExists(atPath: staging.staging.location), "round \(round)")
        }
        watching.store(false, ordering: .relaxed)
        #expect(missing.load(ordering: .relaxed) == 0, "the store's path was found missing")
        let left = try FileManager.default.contentsOfDirectory(
            atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path)
        #expect(!left.contains { $0.contains("strata-copying") }, "\(left)")
    }
}
