import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSQLite

/// History written by two processes at once: this one and `strata-sqlite-probe`, each inserting
/// an Entry and incrementing the shared Counter per save (retrying on conflict).
@Suite struct SQLiteHistoryProcessTests {
    @Test func twoProcessesWritingShareOneGaplessSequenceAndSeeEachOthersTransactions() throws {
        let (url, store) = try makeProbeStore()
        let perProcess = 60
        let model = store.model
        let counterID = ObjectID(entityName: "Counter", storeIdentifier: store.identifier, primaryKey: 1)
        let probe = try RunningProgram(
            builtExecutable("strata-sqlite-probe"), ["write", url.location, String(perProcess), "probe"])
        var seenTokens: [Int64] = []
        for serial in 0..<perProcess {
            let id = try store.obtainPermanentIDs(for: "Entry", count: 1)[0]
            while true {
                let counter = try store.fetch(FetchRequest(entityName: "Counter", objectIDs: [counterID])).snapshots()[
                    0]
                guard case .integer(let value) = counter.attributes[0] else {
                    Issue.record("counter is not an integer")
                    return
                }
                var next = counter
                next.attributes[0] = .integer(value + 1)
                let entry = makeSnapshot(id, in: model, ["tag": "test", "serial": .integer(Int64(serial))])
                do {
                    try store.save(
                        SaveRequest(
                            inserts: [entry], updates: [.init(next, expectedVersion: counter.version)],
                            transactionAuthor: "test"))
                    break
                } catch let error as StrataError where error.code == .conflict {
                    continue
                }
            }
            seenTokens.append(try store.lastHistoryToken()?.sequence ?? 0)
        }
        let printed = probe.finish()
        #expect(printed.status == 0)

        // The counter's insert, then one transaction per save of either process.
        let saves = 1 + 2 * perProcess
        #expect(try store.lastHistoryToken()?.sequence == Int64(saves))
        #expect(seenTokens == seenTokens.sorted(), "the last token never went back: \(seenTokens)")
        let history = try store.fetchHistory(HistoryRequest())
        #expect(history.map(\.token.sequence) == (1...Int64(saves)).map { $0 })
        // Each save's transaction inserted its Entry and updated the counter by one.
        let inserted = history.dropFirst().flatMap { $0.changes.filter { $0.kind == .insert }.map(\.objectID) }
        let stored = try store.fetch(FetchRequest(entityName: "Entry", resultType: .objectIDs)).objectIDs()
        #expect(inserted.sorted() == stored.sorted())
        for transaction in history.dropFirst() {
            let counter = transaction.changes.first { $0.objectID == counterID }
            guard case .attribute(.integer(let old))? = counter?.properties.first?.oldValue,
                case .attribute(.integer(let new))? = counter?.properties.first?.newValue
            else {
                Issue.record("transaction \(transaction.token) has no counter change: \(transaction.changes)")
                continue
            }
            #expect(new == old + 1, "transaction \(transaction.token)")
            #expect(new == transaction.token.sequence - 1, "the saves incremented the counter in commit order")
        }
        #expect(history.filter { $0.author == "test" }.count == perProcess)
    }
}
