import Foundation
import Strata
import StrataTestSupport
import StrataTransfer
import Testing

/// ``StoreFollower`` in one process: a copy that receives the source's later saves, across kinds
/// of store. The source keeps its history in a ``HistoryKeepingStore`` around a real store, so
/// these tests pin the follower's own work; FollowCommandTests runs it on the stores' history.
@Suite struct StoreFollowerTests {
    static let pairs: [(String, String)] = [
        ("sqlite", "lmdb"), ("lmdb", "sqlite"), ("sqlite", "xml"), ("lmdb", "lmdb"), ("xml", "sqlite"),
    ]

    /// A seeded source and where its copy goes.
    struct Stores {
        let directory = TemporaryDirectory()
        let source: any PersistentStore
        let destination: StoreURL
        let backend: any StoreBackend

        init(_ from: String, _ to: String, employees: Int = 30) throws {
            source = HistoryKeepingStore(try Fixture.open(directory.storeURL(from, name: "source")))
            try seedCompany(source, employees: employees)
            destination = directory.storeURL(to, name: "copy")
            backend = try BuiltInBackends.registry.backend(for: to)
        }

        func history() throws -> any HistoryRecording { try #require(source.capability((any HistoryRecording).self)) }

        func close() {
            try? source.close()
            directory.cleanUp()
        }
    }

    @Test(arguments: pairs)
    func everySaveAfterTheCopyReachesIt(_ from: String, _ to: String) throws {
        let stores = try Stores(from, to)
        defer { stores.close() }
        let follower = StoreFollower(transactionsPerSave: 7)
        let start = try follower.start(from: stores.source, to: stores.destination, backend: stores.backend)
        defer { try? start.store.close() }
        #expect(start.copied?.total == 2 + 6 + 30 + 12)
        #expect(start.position == (try stores.history().lastHistoryToken()))

        var writer = CompanyWriter(stores.source, random: SeededGenerator(seed: 11, step: from.count * 10 + to.count))
        for _ in 0..<40 { try writer.step(author: "writer") }
        let last = try #require(try stores.history().lastHistoryToken())
        let progress = try follower.catchUp(from: stores.source, to: start.store)
        #expect(progress.position == last)
        #expect(progress.transactions == Int(last.sequence - start.position.sequence))
        #expect(progress.saves == (progress.transactions + 6) / 7)
        #expect(try Fixture.export(start.store) == (try Fixture.export(stores.source)), "\(from) -> \(to)")
        let recorded = try start.store.metadata().userInfo[
            StoreFollower.metadataKey(following: stores.source.identifier)]
        #expect(recorded == last.description)

        // Nothing new: nothing applied, nothing saved.
        let again = try follower.catchUp(from: stores.source, to: start.store)
        #expect(again.saves == 0 && again.position == last)
    }

    /// One transaction per save, though the source has moved on: each save brings the other side
    /// of every link it changes, so an xml: copy (which checks both sides when it opens) opens
    /// after every one of them.
    @Test func everySaveLeavesBothSidesOfEachRelationshipAgreeing() throws {
        let stores = try Stores("sqlite", "xml")
        defer { stores.close() }
        let follower = StoreFollower(transactionsPerSave: 1)
        let start = try follower.start(from: stores.source, to: stores.destination, backend: stores.backend)
        defer { try? start.store.close() }
        var writer = CompanyWriter(stores.source, random: SeededGenerator(seed: 15))
        for _ in 0..<30 { try writer.step() }
        let last = try #require(try stores.history().lastHistoryToken())
        var reopened = 0
        var caughtUp = false
        func reopen(_ progress: StoreFollower.Progress) {
            do {
                let copy = try BuiltInBackends.registry.open(
                    stores.destination, model: Fixture.model,
                    options: StoreOptions(isReadOnly: true, createsIfMissing: false))
                try copy.close()
                reopened += 1
            } catch {
                Issue.record("after \(progress.position): \(error)")
            }
            caughtUp = progress.position == last
        }
        try follower.follow(from: stores.source, to: start.store, isCancelled: { caughtUp }, applied: reopen)
        #expect(reopened == 30)
        #expect(try Fixture.export(start.store) == (try Fixture.export(stores.source)))
    }

    // Not into xml:, which checks when it opens that both sides of every relationship agree: a
    // copy made while the source saves may hold a link on one side until history brings the other.
    @Test(arguments: [("sqlite", "lmdb"), ("lmdb", "sqlite")])
    func savesMadeWhileCopyingAreAppliedOverTheCopy(_ from: String, _ to: String) throws {
        let stores = try Stores(from, to, employees: 60)
        defer { stores.close() }
        var writer = CompanyWriter(stores.source, random: SeededGenerator(seed: 12, step: from.count))
        let copier = StoreCopier(batchSize: 8)
        let follower = StoreFollower()
        // Each batch of the copy is followed by a save in the source.
        let start = try follower.start(
            from: stores.source, to: stores.destination, backend: stores.backend, copier: copier
        ) { _ in try? writer.step(deleting: false) }
        defer { try? start.store.close() }
        #expect(writer.saves > 5)
        try follower.catchUp(from: stores.source, to: start.store)
        #expect(try Fixture.export(start.store) == (try Fixture.export(stores.source)), "\(from) -> \(to)")
    }

    @Test func aCopyThatFollowsResumesAndAnInterruptedOneIsCopiedAgain() throws {
        let stores = try Stores("sqlite", "lmdb")
        defer { stores.close() }
        let follower = StoreFollower()
        let first = try follower.start(from: stores.source, to: stores.destination, backend: stores.backend)
        try first.store.close()
        var writer = CompanyWriter(stores.source, random: SeededGenerator(seed: 13))
        for _ in 0..<5 { try writer.step() }

        let resumed = try follower.start(from: stores.source, to: stores.destination, backend: stores.backend)
        #expect(resumed.copied == nil)
        #expect(resumed.position == first.position)
        #expect(try follower.catchUp(from: stores.source, to: resumed.store).transactions == 5)
        #expect(try Fixture.export(resumed.store) == (try Fixture.export(stores.source)))

        // A copy killed midway leaves the marker: the next start copies again.
        let key = StoreFollower.metadataKey(following: stores.source.identifier)
        try resumed.store.save(SaveRequest(metadataChanges: [key: StoreFollower.copyingMarker]))
        try resumed.store.close()
        let recopied = try follower.start(from: stores.source, to: stores.destination, backend: stores.backend)
        defer { try? recopied.store.close() }
        #expect(recopied.copied?.total == (try Fixture.count(stores.source)))
        #expect(try Fixture.export(recopied.store) == (try Fixture.export(stores.source)))
    }

    @Test func aDestinationHoldingOtherObjectsIsStillRefused() throws {
        let stores = try Stores("sqlite", "lmdb")
        defer { stores.close() }
        let other = try Fixture.open(stores.destination)
        try seedCompany(other, employees: 3)
        try other.close()
        let error = try #require(throws: StrataError.self) {
            try StoreFollower().start(from: stores.source, to: stores.destination, backend: stores.backend)
        }
        #expect(error.code == .invalidRequest)
        #expect(error.message.contains("already holds"))
    }

    @Test func aSourcePrunedPastTheCopyIsATypedErrorSayingToCopyAgain() throws {
        let stores = try Stores("sqlite", "lmdb")
        defer { stores.close() }
        let follower = StoreFollower()
        let start = try follower.start(from: stores.source, to: stores.destination, backend: stores.backend)
        defer { try? start.store.close() }
        var writer = CompanyWriter(stores.source, random: SeededGenerator(seed: 14))
        for _ in 0..<4 { try writer.step() }
        try stores.history().pruneHistory(.keepingLast(1))
        let error = try #require(throws: StrataError.self) {
            try follower.catchUp(from: stores.source, to: start.store)
        }
        #expect(error.code == .historyExpired)
        #expect(error.message.contains("copy again with --replace"))
        #expect(error.location["token"] == start.position.description)
    }

    @Test func aSourceWithHistoryOffIsRefusedBeforeCopying() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let source = HistoryKeepingStore(
            try Fixture.open(directory.storeURL("sqlite", name: "source")), recordsHistory: false)
        defer { try? source.close() }
        let destination = directory.storeURL("lmdb", name: "copy")
        let error = try #require(throws: StrataError.self) {
            try StoreFollower().start(
                from: source, to: destination, backend: BuiltInBackends.registry.backend(for: "lmdb"))
        }
        #expect(error.code == .unsupported)
        #expect(error.message.contains("history off"))
        #expect(try BuiltInBackends.registry.backend(for: "lmdb").metadata(at: destination) == nil)
    }
}
