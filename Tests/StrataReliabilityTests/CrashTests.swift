import Foundation
import StrataCore
import StrataTestSupport
import StrataTortureKit
import Testing

/// Kills a process that is saving with SIGKILL at random moments, hundreds of times per
/// persistent backend. After each kill the store must reopen, pass its integrity check and
/// hold exactly the last save the process reported committed, or the one it had in flight:
/// since save `n`'s content follows from the seed and `n` alone (``TortureState``), "exactly"
/// means equal to the state recomputed from scratch, to every value and version. A store that
/// records history must hold exactly one transaction per committed save, the last one with the
/// last save's changes (``TortureHistory``): history and data commit together or not at all.
@Suite struct CrashTests {
    /// Kills per backend (the issue asks for at least 200).
    static let kills = 200

    @Test(arguments: TortureStores.schemes)
    func aKilledWriterLeavesExactlyTheLastCommittedSaveOrTheOneInFlight(_ scheme: String) throws {
        let seed: UInt64 = 0x5EED_0000 + UInt64(scheme.utf8.count)
        let url = temporaryStoreURL(scheme)
        let creating = try TortureStores.open(url)
        _ = try TortureDriver.create(in: creating, seed: seed)
        try creating.close()

        var random = SeededGenerator(seed: seed)
        var expected = TortureState.initial
        var beforeLast = TortureState.initial
        var historyChecks = 0
        var inFlightFound = 0
        var killedDuringOpen = 0
        var waitedCommits = 0
        for kill in 0..<Self.kills {
            let child = try tortureChild(["crash", url.description, String(seed)])
            if kill % 8 == 0 {
                // Now and then, kill it while it opens the store (recovery, reader checks).
                usleep(UInt32.random(in: 0...40_000, using: &random))
            } else {
                guard child.waitForLine(startingWith: "ready") != nil else {
                    child.kill()
                    Issue.record("kill \(kill): the child never became ready: \(child.lines)")
                    return
                }
                // Wait for a few commits (progress does not depend on the machine's speed), then
                // kill a moment later: usually in the middle of the next save.
                let commits = Int.random(in: 0...3, using: &random)
                if commits > 0, child.waitForLine(startingWith: "committed \(expected.lastSave + commits)") == nil {
                    child.kill()
                    Issue.record("kill \(kill): the child stopped saving: \(child.lines)")
                    return
                }
                waitedCommits += commits
                usleep(UInt32.random(in: 0...4_000, using: &random))
            }
            child.kill()
            if child.lines.contains(where: { $0.hasPrefix("error") }) {
                Issue.record("kill \(kill): the child reported \(child.lines.filter { $0.hasPrefix("error") })")
                return
            }
            if !child.lines.contains(where: { $0.hasPrefix("ready") }) { killedDuringOpen += 1 }
            let committed =
                child.lines.compactMap { line -> Int? in
                    line.hasPrefix("committed ") ? Int(line.dropFirst("committed ".count)) : nil
                }.max() ?? expected.lastSave

            let store = try TortureStores.open(url, options: StoreOptions(createsIfMissing: false))
            defer { try? store.close() }
            let problems = try StoreIntegrity.check(url, store: store)
            #expect(problems.isEmpty, "kill \(kill): \(problems)")
            let loaded = try TortureDriver.load(from: store, seed: seed)
            let found = loaded.state
            #expect(
                found.lastSave == committed || found.lastSave == committed + 1,
                "kill \(kill): the child reported save \(committed) committed, the store holds save \(found.lastSave)")
            guard found.lastSave >= expected.lastSave else {
                Issue.record("kill \(kill): the store went back from save \(expected.lastSave) to \(found.lastSave)")
                return
            }
            if found.lastSave == committed + 1 { inFlightFound += 1 }
            while expected.lastSave < found.lastSave {
                beforeLast = expected
                expected.apply(
                    expected.operations(forSave: expected.lastSave + 1, seed: seed), save: expected.lastSave + 1)
            }
            #expect(found == expected, "kill \(kill): the store holds \(found), save \(found.lastSave) is \(expected)")
            if found != expected || !problems.isEmpty { return }
            if let history = store.capability((any HistoryRecording).self), history.recordsHistory {
                let historyProblems = try TortureHistory.problems(history, driver: loaded, beforeLastSave: beforeLast)
                #expect(historyProblems.isEmpty, "kill \(kill): \(historyProblems)")
                if !historyProblems.isEmpty { return }
                historyChecks += 1
            }
            try store.close()
        }
        #expect(
            expected.lastSave >= waitedCommits,
            "the children committed \(expected.lastSave) saves, \(waitedCommits) were seen reported")
        let directory = (url.location as NSString).deletingLastPathComponent
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp-") }
            .count
        #expect(leftovers == 0, "opening the store removes the temporary files killed writers left")
        reportCount(
            "crash \(scheme): \(Self.kills) kills survived (\(killedDuringOpen) while opening), \(expected.lastSave) saves checked exactly, \(inFlightFound) in-flight saves found committed, \(leftovers) stray temporary files, history checked after \(historyChecks) kills"
        )
    }

    /// Kills per backend while a store is being created.
    static let creationKills = 100

    @Test(arguments: TortureStores.schemes)
    func aWriterKilledWhileCreatingAStoreLeavesNoStoreOrAWholeOne(_ scheme: String) throws {
        var random = SeededGenerator(seed: 0xC0FFEE + UInt64(scheme.utf8.count))
        var outcomes: [String: Int] = [:]
        for kill in 0..<Self.creationKills {
            let url = temporaryStoreURL(scheme)
            let child = try tortureChild(["create", url.description])
            _ = child.waitForLine(startingWith: "opening")
            usleep(UInt32.random(in: 0...20_000, using: &random))
            child.kill()
            #expect(!child.lines.contains { $0.hasPrefix("error") }, "kill \(kill): \(child.lines)")
            // A later command (the tool reads the metadata first) finds no store or a whole
            // one, never a half-created one it must refuse as storeCorrupt.
            do {
                _ = try TortureStores.backend(scheme).metadata(at: url)
            } catch {
                Issue.record("kill \(kill): the store's metadata cannot be read after the kill: \(error)")
            }
            // Whatever the kill left, opening (creating if needed) gives a usable store: no
            // store, an empty one, or the whole initial graph; never a damaged or partial one.
            let store = try TortureStores.open(url)
            defer { try? store.close() }
            #expect(try StoreIntegrity.check(url, store: store).isEmpty, "kill \(kill)")
            let groups = try store.fetch(FetchRequest(entityName: "Group", resultType: .count)).count()
            if groups == 0 {
                #expect(
                    try store.fetch(FetchRequest(entityName: "Journal", resultType: .count)).count() == 0,
                    "kill \(kill): a partial graph")
                _ = try TortureDriver.create(in: store, seed: 1)
                outcomes["none or empty", default: 0] += 1
            } else {
                #expect(try TortureDriver.load(from: store, seed: 1).state == .initial, "kill \(kill)")
                outcomes["whole", default: 0] += 1
            }
            try? FileManager.default.removeItem(atPath: (url.location as NSString).deletingLastPathComponent)
        }
        reportCount(
            "crash while creating \(scheme): \(Self.creationKills) kills survived, outcomes \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
        )
    }
}
