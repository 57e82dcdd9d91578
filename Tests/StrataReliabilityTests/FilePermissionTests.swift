import Foundation
import StrataCore
import StrataTortureKit
import Testing

@testable import StrataXML

/// New store files are readable and writable by their owner only, whatever the umask: the
/// child process creates one store of each persistent kind with umask 0 and lists the modes of
/// every file while the stores are open.
@Suite struct FilePermissionTests {
    @Test func everyFileANewStoreCreatesIsOwnerOnlyEvenWithUmaskZero() throws {
        let directory = temporaryDirectory()
        let run = try runTorture(["modes", directory])
        #expect(run.status == 0, "\(run.lines)")
        let modes = Dictionary(
            uniqueKeysWithValues: run.lines.filter { $0.hasPrefix("mode ") }.map { line -> (String, String) in
                let parts = line.split(separator: " ", maxSplits: 2)
                return (String(parts[2]).replacingOccurrences(of: directory + "/", with: ""), String(parts[1]))
            })
        let expected = [
            "store.sqlite": "600", "store.sqlite-wal": "600", "store.sqlite-shm": "600",
            "store-lmdb": "700", "store-lmdb/data.mdb": "600", "store-lmdb/lock.mdb": "600",
            "store.xml": "600", "store.xml.lock": "600", "store.xml.keys": "600",
            "store.sqlite.strata-lock": "600", "store-lmdb.strata-lock": "600", "store.xml.strata-lock": "600",
        ]
        #expect(modes == expected)
        reportCount("file modes: \(modes.count) files checked with umask 0")
    }

    @Test func theXMLStoresTemporaryFileIsOwnerOnly() throws {
        let url = temporaryStoreURL("xml")
        let directory = (url.location as NSString).deletingLastPathComponent
        let store = try TortureStores.open(url)
        defer { try? store.close() }
        let modes = Locked<[String: mode_t]>([:])
        (store as! XMLStore).setBeforeRenameHook {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            where name.contains(".tmp-") {
                var info = stat()
                if stat(directory + "/" + name, &info) == 0 { modes.withLock { $0[name] = info.st_mode & 0o777 } }
            }
        }
        try TortureDriver.create(in: store, seed: 71).saveNext()
        let seen = modes.withLock { $0 }
        #expect(!seen.isEmpty, "the hook saw the temporary file")
        #expect(seen.values.allSatisfy { $0 == 0o600 }, "\(seen)")
    }
}
