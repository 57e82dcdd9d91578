import Foundation
import StrataCore
import StrataLMDB
import Synchronization
import Testing
import StrataTestSupport

@Suite("LMDB store: map growth, concurrent readers, several processes")
struct LMDBEnvironmentTests {
    @Test func oneSaveLargerThanTheInitialMapGrowsTheMapAndLosesNothing() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        let store = try openStore(path, options: StoreOptions(options: ["mapSize": "1048576"]))
        #expect(store.mapSize == 1_048_576)
        let count = 20_000
        let ids = try store.obtainPermanentIDs(for: "Employee", count: count)
        let padding = String(repeating: "x", count: 200)
        let inserts = ids.enumerated().map { employee($1, name: "employee \($0) \(padding)", age: Int64($0 % 90), model: model) }
        let result = try store.save(SaveRequest(inserts: inserts))
        #expect(result.versions.count == count)
        #expect(store.mapSize > 4 * 1_048_576, "the map grew past the ~5 MB of records")
        #expect(try store.fetch(FetchRequest(entityName: "Employee", resultType: .count)).count() == count)
        try store.close()

        let reopened = try openStore(path, options: StoreOptions(options: ["mapSize": "1048576"]))
        defer { try? reopened.close() }
        let all = try reopened.fetch(FetchRequest(entityName: "Employee")).snapshots()
        #expect(all.count == count)
        #expect(all.last?.attributes[0] == .string("employee \(count - 1) \(padding)"))
        let aged = try reopened.fetch(FetchRequest(entityName: "Employee", predicate: .comparison(.init(.keyPath("age"), .equal, .constant(.integer(7)))), resultType: .count)).count()
        #expect(aged == (0..<count).filter { $0 % 90 == 7 }.count, "the index was written completely too")
    }

    @Test func readersOnOtherThreadsSeeBeforeOrAfterAndAreNotBlockedByASave() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        let store = try openStore(path, options: StoreOptions(options: ["mapSize": "268435456"]))
        defer { try? store.close() }
        let count = 30_000
        let ids = try store.obtainPermanentIDs(for: "Employee", count: count)
        let inserts = ids.enumerated().map { employee($1, name: "e\($0)", age: Int64($0 % 50), model: model) }

        let saving = Atomic<Bool>(false)
        let done = Atomic<Bool>(false)
        let readsDuringSave = Atomic<Int>(0)
        let partialReads = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        let readers = DispatchGroup()
        for _ in 0..<3 {
            readers.enter()
            Thread.detachNewThread {
                defer { readers.leave() }
                while !done.load(ordering: .acquiring) {
                    let startedDuringSave = saving.load(ordering: .acquiring)
                    do {
                        let seen = try store.fetch(FetchRequest(entityName: "Employee", resultType: .objectIDs)).objectIDs().count
                        if seen != 0 && seen != count { partialReads.add(1, ordering: .relaxed) }
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                    if startedDuringSave && saving.load(ordering: .acquiring) { readsDuringSave.add(1, ordering: .relaxed) }
                }
            }
        }
        Thread.sleep(forTimeInterval: 0.05)
        saving.store(true, ordering: .releasing)
        try store.save(SaveRequest(inserts: inserts))
        saving.store(false, ordering: .releasing)
        Thread.sleep(forTimeInterval: 0.05)
        done.store(true, ordering: .releasing)
        readers.wait()

        #expect(partialReads.load(ordering: .relaxed) == 0, "no reader saw part of the save")
        #expect(failures.load(ordering: .relaxed) == 0)
        #expect(readsDuringSave.load(ordering: .relaxed) > 0, "readers completed fetches while the write transaction was open")
        #expect(try store.fetch(FetchRequest(entityName: "Employee", resultType: .count)).count() == count)
    }

    @Test func severalProcessesShareOneEnvironmentWithoutReusingKeys() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try ProbeModels.lmdb()
        let store = try openStore(path, model: model, options: StoreOptions(options: ["mapSize": "1048576"]))
        defer { try? store.close() }
        let mine = try store.obtainPermanentIDs(for: "Item", count: 10)

        let outputs = Locked<[ProgramOutput]>([])
        let group = DispatchGroup()
        for arguments in [["insert", path, "200", "5"], ["insert", path, "200", "5"], ["insert", path, "2000", "10", "1048576"]] {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                let output = (try? runProbe(arguments)) ?? ProgramOutput(status: -1, output: "", errors: "could not start the probe")
                outputs.withLock { $0.append(output) }
            }
        }
        // Read while the other processes write.
        var observed: [Int] = []
        while group.wait(timeout: .now() + 0.02) == .timedOut {
            observed.append(try store.fetch(FetchRequest(entityName: "Item", resultType: .count)).count())
        }
        let results = outputs.withLock { $0 }
        var keys: [Int64] = mine.compactMap(\.primaryKey)
        for output in results {
            #expect(output.status == 0, "probe failed: \(output.output) \(output.errors)")
            let words = output.output.split(whereSeparator: \.isWhitespace)
            #expect(words.first == "ok")
            keys += words.dropFirst().compactMap { Int64($0) }
        }
        #expect(keys.count == 10 + 1000 + 1000 + 20_000)
        #expect(Set(keys).count == keys.count, "no key was handed out twice across processes")
        #expect(observed == observed.sorted(), "counts seen from this process only grow (whole saves)")
        // The third probe grew the map beyond this process's 1 MiB: reading adopts the new size.
        #expect(try store.fetch(FetchRequest(entityName: "Item", resultType: .count)).count() == 22_000)
        #expect(try store.fetch(FetchRequest(entityName: "Item")).snapshots().count == 22_000)
        let counted = try runProbe(["count", path])
        #expect(counted.output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok 22000")
    }

    @Test func theStandardToolsReadTheEnvironment() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        let store = try openStore(path)
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 3)
        try store.save(SaveRequest(inserts: ids.enumerated().map { employee($1, name: "tool\($0)", age: 40, model: model) }))
        // The tools read while the store is open in this process, too.
        let mdbStat = try #require(which("mdb_stat"), "mdb_stat (lmdb-utils) must be installed")
        let mdbDump = try #require(which("mdb_dump"), "mdb_dump (lmdb-utils) must be installed")
        let stat = try runProgram(mdbStat, ["-a", path])
        #expect(stat.status == 0, "\(stat.errors)")
        for database in ["_meta", "_seq", "e:Employee", "e:Department", "i:Employee:byAge", "u:Department:name", "r:Employee:department"] {
            #expect(stat.output.contains("Status of \(database)"), "mdb_stat lists \(database)")
        }
        #expect(stat.output.contains("Entries: 3"))
        let dump = try runProgram(mdbDump, ["-p", "-s", "e:Employee", path])
        #expect(dump.status == 0, "\(dump.errors)")
        #expect(dump.output.contains("tool2"), "records are readable in the dump")
        #expect(dump.output.contains("\\80\\00\\00\\00\\00\\00\\00\\01"), "keys are big-endian with the sign bit flipped")
        try store.close()
        let meta = try runProgram(mdbDump, ["-p", "-s", "_meta", path])
        #expect(meta.output.contains(store.identifier))
    }
}
