import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSQLite

/// Two processes writing one file: the test process and `strata-sqlite-probe` (an executable
/// target of this package, built with the tests and found beside the test bundle). Each save
/// inserts one Entry and increments the shared Counter with optimistic locking, retrying on
/// conflict; so after both finish, a lost save shows as a missing Entry and a torn save as a
/// Counter that differs from the number of Entries.
@Suite struct SQLiteMultiProcessTests {
    @Test func twoProcessesWritingConcurrentlyLoseNothing() throws {
        let (url, store) = try makeProbeStore()
        let perProcess = 400
        let model = store.model
        let counterID = ObjectID(entityName: "Counter", storeIdentifier: store.identifier, primaryKey: 1)

        let probe = try RunningProgram(
            builtExecutable("strata-sqlite-probe"), ["write", url.location, String(perProcess), "probe"])

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
                        SaveRequest(inserts: [entry], updates: [.init(next, expectedVersion: counter.version)]))
                    break
                } catch let error as StrataError where error.code == .conflict {
                    continue
                }
            }
        }
        let printed = probe.finish()
        #expect(printed.status == 0)
        #expect(printed.output.contains("done"))

        let entries = try store.fetch(FetchRequest(entityName: "Entry")).snapshots()
        #expect(entries.count == 2 * perProcess)
        for tag in ["test", "probe"] {
            let serials = entries.filter { $0.attributes[0] == .string(tag) }.compactMap { entry -> Int64? in
                if case .integer(let s) = entry.attributes[1] { return s } else { return nil }
            }
            #expect(serials.sorted() == (0..<Int64(perProcess)).map { $0 }, "every save of \(tag) is there once")
        }
        let counter = try store.fetch(FetchRequest(entityName: "Counter")).snapshots()[0]
        #expect(counter.attributes[0] == .integer(Int64(2 * perProcess)))
        #expect(counter.version == Int64(2 * perProcess) + 1)
        #expect(Set(entries.map(\.objectID)).count == entries.count, "no key handed out twice across processes")
    }

    @Test func readersDuringASaveSeeBeforeOrAfterNeverAPart() async throws {
        let (_, store) = try makeProbeStore()
        let model = store.model
        let batch = 500
        let rounds = 8
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for round in 0..<rounds {
                    let ids = try store.obtainPermanentIDs(for: "Entry", count: batch)
                    try store.save(
                        SaveRequest(
                            inserts: ids.map {
                                makeSnapshot($0, in: model, ["tag": .string("r\(round)"), "serial": 0])
                            }))
                }
            }
            group.addTask {
                for _ in 0..<200 {
                    let count = try store.fetch(FetchRequest(entityName: "Entry", resultType: .count)).count()
                    #expect(count % batch == 0, "a reader saw \(count) entries, a part of a save")
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.fetch(FetchRequest(entityName: "Entry")).snapshots().count == batch * rounds)
    }
}
