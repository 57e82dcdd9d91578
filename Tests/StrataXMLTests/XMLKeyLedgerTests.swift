import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataXML

/// Keys handed out by `obtainPermanentIDs` are never handed out again: not after the store is
/// closed (or dropped) without saving and opened again, not by another store that opened the
/// same file (each holds its own open file description, which is what `flock` arbitrates between
/// processes too).
@Suite struct XMLKeyLedgerTests {
    func keys(_ store: XMLStore, _ count: Int, _ entity: String = "Item") throws -> [Int64] {
        try store.obtainPermanentIDs(for: entity, count: count).map { $0.primaryKey! }
    }

    @Test func keysHandedOutButNotSavedAreNotHandedOutAgainAfterReopening() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let first = try openStore(dir.url())
        let before = try keys(first, 3)
        try first.close()
        let second = try openStore(dir.url())
        let after = try keys(second, 3)
        #expect(before == [1, 2, 3])
        #expect(after == [4, 5, 6])
        #expect(Set(before).isDisjoint(with: after))
    }

    @Test func keysHandedOutByAStoreDroppedWithoutClosingAreNotHandedOutAgain() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var dropped: XMLStore? = try openStore(dir.url())
        let before = try keys(dropped!, 2, "Employee")
        dropped = nil
        let reopened = try openStore(dir.url())
        #expect(before == [1, 2])
        #expect(try keys(reopened, 2, "Employee") == [3, 4])
        #expect(try keys(reopened, 1, "Department") == [1], "each entity has its own keys")
    }

    @Test func twoStoresOnTheSameFileNeverHandOutTheSameKey() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let a = try openStore(dir.url())
        let b = try openStore(dir.url())
        var all: [Int64] = []
        for round in 1...5 {
            all += try keys(a, round)
            all += try keys(b, 6 - round)
        }
        #expect(all.count == 30)
        #expect(Set(all).count == 30)

        // A saves objects under its keys; B, which cannot save over A's file, still hands out
        // only new keys, and so does a third store opened on A's saved file.
        let ids = try a.obtainPermanentIDs(for: "Item", count: 2)
        try a.save(SaveRequest(inserts: ids.enumerated().map { itemSnapshot($1, name: "a\($0)") }))
        let fromB = try keys(b, 2)
        let fromC = try keys(openStore(dir.url()), 2)
        let used = Set(all + ids.map { $0.primaryKey! })
        #expect(used.isDisjoint(with: fromB + fromC))
        #expect(Set(fromB + fromC).count == 4)
    }

    @Test func storesOnTheSameFileHandingOutKeysConcurrentlyNeverOverlap() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let stores = [try openStore(dir.url()), try openStore(dir.url())]
        let handedOut = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for task in 0..<8 {
                let store = stores[task % 2]
                group.addTask {
                    var mine: [Int64] = []
                    for _ in 0..<10 {
                        mine += try store.obtainPermanentIDs(for: "Item", count: 3).map { $0.primaryKey! }
                    }
                    return mine
                }
            }
            var all: [Int64] = []
            for try await keys in group { all += keys }
            return all
        }
        #expect(handedOut.count == 240)
        #expect(Set(handedOut).count == 240)
        #expect(handedOut.max() == 240, "no gaps: every key was handed out once")
    }

    @Test func theLedgerRecordsEachEntitysNextKeyAsText() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        _ = try keys(store, 4)
        _ = try keys(store, 2, "Employee")
        let text = String(decoding: contents(dir.file("store.xml.keys")), as: UTF8.self)
        #expect(text == "strata-xml-keys 1\nstore \(store.identifier)\nnext Employee 3\nnext Item 5\nend\n")
        var info = stat()
        #expect(stat(dir.file("store.xml.keys"), &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    @Test func keysStartAfterTheStoresSequenceWhenTheLedgerIsGone() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        let ids = try store.obtainPermanentIDs(for: "Item", count: 3)
        try store.save(SaveRequest(inserts: ids.map { itemSnapshot($0, name: "x") }))
        try store.close()
        unlink(dir.file("store.xml.keys"))
        #expect(try keys(openStore(dir.url()), 1) == [4], "the saved sequence alone keeps saved keys unique")
    }

    @Test func aLedgerLeftByAnotherStoreAtThePathIsIgnoredAndReplaced() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        write("strata-xml-keys 1\nstore OTHER\nnext Item 900\nend\n", to: dir.file("store.xml.keys"))
        let store = try openStore(dir.url())
        #expect(try keys(store, 2) == [1, 2])
        let text = String(decoding: contents(dir.file("store.xml.keys")), as: UTF8.self)
        #expect(text == "strata-xml-keys 1\nstore \(store.identifier)\nnext Item 3\nend\n")
    }

    @Test func whatFollowsTheEndLineIsIgnored() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        write(
            "strata-xml-keys 1\nstore \(store.identifier)\nnext Item 7\nend\nnext Item 12\nen",
            to: dir.file("store.xml.keys"))
        #expect(try keys(store, 1) == [7])
    }

    @Test(arguments: [
        ("garbage\n", 1),
        ("strata-xml-keys 1\n", 2),
        ("strata-xml-keys 1\nstore S\nnext Item twelve\nend\n", 3),
        ("strata-xml-keys 1\nstore S\nnext Item 0\nend\n", 3),
        ("strata-xml-keys 1\nstore S\nnext Item 4\n", 4),
    ])
    func aDamagedLedgerIsStoreCorruptNamingItsLine(text: String, line: Int) throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        write(
            text.replacingOccurrences(of: "store S\n", with: "store \(store.identifier)\n"),
            to: dir.file("store.xml.keys"))
        let error = strataError { _ = try store.obtainPermanentIDs(for: "Item", count: 1) }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.location["path"] == dir.file("store.xml.keys"))
        #expect(error?.location["line"] == String(line))
        #expect(error?.message.contains("delete it") == true)
    }

    @Test func keysTakenThroughAGivenKeyAreNeverHandedOutEvenAfterReopening() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        let other = try openStore(dir.url())
        let item = TestModels.allTypes.entities.firstIndex { $0.name == "Item" }!
        try store.takeKeys(through: 50, entity: item)
        #expect(try keys(store, 1) == [51])
        #expect(try keys(other, 1) == [52], "another store on the file sees it too")
        try store.takeKeys(through: 10, entity: item)
        try store.close()
        #expect(try keys(openStore(dir.url()), 1) == [53], "keys already taken change nothing")
        #expect(strataError { try other.takeKeys(through: 0, entity: item) }?.code == .invalidRequest)
    }

    @Test func askingForNoKeysWritesNothing() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        #expect(try keys(store, 0).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.file("store.xml.keys")))
    }

    @Test func aClosedStoreHandsOutNoKeysAndDestroyStoreRemovesTheLedger() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        _ = try keys(store, 1)
        try store.close()
        #expect(strataError { _ = try store.obtainPermanentIDs(for: "Item", count: 1) }?.code == .storeClosed)
        try XMLBackend().destroyStore(at: dir.url())
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).withoutStoreLocks.isEmpty)
    }
}
