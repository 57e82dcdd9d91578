import Foundation
import StrataConformance
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataPostgres

/// Several stores on one schema, as several hosts have: creating a store at once, saving at once
/// (history sequences commit in order, each announced once on `strata_history` at commit), and a
/// read-only store beside a writable one.
@Suite(.enabled(if: PostgresTestServer.shouldRun, Comment(rawValue: PostgresTestServer.skipReason)))
struct PostgresStoreAcrossHostsTests {
    let model = ConformanceFixtures.model

    func open(_ url: StoreURL, options: StoreOptions = StoreOptions()) throws -> PostgresStore {
        try #require(try PostgresBackend().open(url, model: model, options: options) as? PostgresStore)
    }

    func company(_ store: PostgresStore, _ name: String) throws -> Snapshot {
        let id = try store.obtainPermanentIDs(for: "Company", count: 1)[0]
        return Snapshot(objectID: id, version: 0, attributes: [.string(name), .null], relationships: [.toMany([])])
    }

    @Test func storesCreatedAtOnceAgreeOnOneStore() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let identifiers = Locked<[String]>([])
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            do {
                let store = try PostgresBackend().open(url, model: model, options: StoreOptions())
                identifiers.withLock { $0.append(store.identifier) }
                try store.close()
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(Set(identifiers.withLock { $0 }).count == 1)
        #expect(try PostgresBackend().metadata(at: url)?.storeIdentifier == identifiers.withLock { $0 }.first)
    }

    @Test func concurrentSavesCommitHistoryInOrderAndNotifyOncePerSave() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let stores = try (0..<3).map { _ in try open(url) }
        let listener = try PostgresConnection(settings: PostgresConnectionSettings(try PostgresTestServer.requireURL()))
        defer { listener.close() }
        try listener.execute("LISTEN \(PostgresHistoryTable.notificationChannel)")
        let saves = 30
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: saves) { i in
            let store = stores[i % stores.count]
            do {
                try store.save(SaveRequest(inserts: [try company(store, "Company \(i)")]))
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let history = try stores[0].fetchHistory(HistoryRequest())
        #expect(history.map(\.token.sequence) == Array(1...Int64(saves)))
        // Other tests' stores notify on the same channel: keep this store's payloads.
        let identifier = stores[0].identifier
        var notified: [String] = []
        func drain() {
            notified += listener.drainNotifications().map(\.payload).filter { $0.hasPrefix(identifier + " ") }
        }
        while notified.count < saves, try listener.waitForInput(timeout: 5) { drain() }
        drain()
        #expect(Set(notified) == Set((1...saves).map { "\(identifier) \($0)" }))
        #expect(notified.count == saves)
        for store in stores { try store.close() }
    }

    @Test func aRejectedSaveRecordsAndAnnouncesNothing() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url)
        defer { try? store.close() }
        let listener = try PostgresConnection(settings: PostgresConnectionSettings(try PostgresTestServer.requireURL()))
        defer { listener.close() }
        try listener.execute("LISTEN \(PostgresHistoryTable.notificationChannel)")
        var stale = try company(store, "Acme")
        try store.save(SaveRequest(inserts: [stale]))
        // Other tests' stores notify on the same channel: keep this store's payloads.
        func mine() -> [String] {
            listener.drainNotifications().map(\.payload).filter { $0.hasPrefix(store.identifier + " ") }
        }
        var seen: [String] = []
        while seen.isEmpty, try listener.waitForInput(timeout: 5) { seen += mine() }
        #expect(seen == ["\(store.identifier) 1"])
        stale.attributes[0] = "Acme 2"
        #expect(throws: StrataError.self) { try store.save(SaveRequest(updates: [.init(stale, expectedVersion: 7)])) }
        // A notification would be delivered at once: a save of the store after the rejected one
        // is the next one announced.
        let next = try company(store, "Initech")
        try store.save(SaveRequest(inserts: [next]))
        seen = []
        while seen.isEmpty, try listener.waitForInput(timeout: 5) { seen += mine() }
        #expect(seen == ["\(store.identifier) 2"])
        #expect(try store.lastHistoryToken()?.sequence == 2)
    }

    @Test func aReadOnlyStoreReadsBesideAWritableOneAndWritesNothing() throws {
        let url = try PostgresTestServer.freshStoreURL()
        defer { try? PostgresBackend().destroyStore(at: url) }
        let writer = try open(url)
        defer { try? writer.close() }
        var readOnlyOptions = StoreOptions()
        readOnlyOptions.isReadOnly = true
        let reader = try open(url, options: readOnlyOptions)
        defer { try? reader.close() }
        let acme = try company(writer, "Acme")
        try writer.save(SaveRequest(inserts: [acme]))
        #expect(try reader.snapshots(of: "Company", among: nil).map(\.objectID) == [acme.objectID])
        for attempt in [
            { try reader.save(SaveRequest(deletes: [.init(acme.objectID, expectedVersion: 1)])) as Any },
            { try reader.obtainPermanentIDs(for: "Company", count: 1) as Any },
            { try reader.pruneHistory(.keepingLast(0)) as Any },
        ] {
            let error = #expect(throws: StrataError.self) { _ = try attempt() }
            #expect(error?.code == .readOnly)
        }
        // A read-only open never creates a store.
        let missing = try PostgresTestServer.freshStoreURL()
        let error = #expect(throws: StrataError.self) { _ = try open(missing, options: readOnlyOptions) }
        #expect(error?.code == .storeNotFound)
    }

    @Test func historyOffRecordsNothing() throws {
        let url = try PostgresTestServer.freshStoreURL(["history": "off"])
        defer { try? PostgresBackend().destroyStore(at: url) }
        let store = try open(url)
        defer { try? store.close() }
        let result = try store.save(SaveRequest(inserts: [try company(store, "Acme")]))
        #expect(result.historyToken == nil)
        #expect(try store.lastHistoryToken() == nil)
        #expect(!store.recordsHistory)
    }

    @Test func unknownOptionsAndBadValuesAreInvalidOptions() throws {
        for query in [["sychronous": "full"], ["pool": "0"], ["schema": ""], ["sslmode": "sometimes"]] {
            let url = try PostgresTestServer.freshStoreURL(query)
            let error = #expect(throws: StrataError.self) { _ = try open(url) }
            #expect(error?.code == .invalidOption, "\(query)")
        }
    }
}
