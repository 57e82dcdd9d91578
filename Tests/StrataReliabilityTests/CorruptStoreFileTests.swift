import Foundation
import StrataCore
import StrataTestSupport
import StrataTortureKit
import Testing

/// Truncated and damaged store files of every persistent backend: opening and reading them
/// gives the data or a typed error, never a crash, a hang or an untyped error; a refused file
/// is left untouched. LMDB files are read in a child process, so that a fault inside liblmdb (which
/// trusts the pages it maps) would be counted rather than end the test run: there must be none,
/// the page check (docs/Reliability.md) refuses damaged pages first.
@Suite struct CorruptStoreFileTests {
    /// A store file (LMDB: `data.mdb`) holding 30 saves of the crash test's graph.
    static func pristine(_ scheme: String) throws -> [UInt8] {
        let url = temporaryStoreURL(scheme)
        let store = try TortureStores.open(url)
        let driver = try TortureDriver.create(in: store, seed: 41)
        for _ in 0..<30 { try driver.saveNext() }
        try store.close()
        let file = scheme == "lmdb" ? url.location + "/data.mdb" : url.location
        return Array(try Data(contentsOf: URL(fileURLWithPath: file)))
    }

    /// Truncations at many offsets, single-byte flips, and 16-byte runs of noise (seeded).
    static func mutations(of bytes: [UInt8], seed: UInt64, pageSize: Int? = nil) -> [(String, [UInt8])] {
        var random = SeededGenerator(seed: seed)
        var result: [(String, [UInt8])] = []
        var offsets = [0, 1, 15, 16, 99, 100, 512, 4095, 4096, 4097, 8191, 8192, bytes.count - 1]
        offsets += (1..<40).map { bytes.count * $0 / 40 }
        offsets += (0..<20).map { _ in Int.random(in: 0..<bytes.count, using: &random) }
        for offset in Set(offsets).sorted() where offset >= 0 && offset < bytes.count {
            result.append(("truncated to \(offset) bytes", Array(bytes[0..<offset])))
        }
        for _ in 0..<120 {
            var copy = bytes
            let position = Int.random(in: 0..<bytes.count, using: &random)
            copy[position] ^= UInt8.random(in: 1...255, using: &random)
            result.append(("byte \(position) flipped", copy))
        }
        for _ in 0..<40 {
            var copy = bytes
            let position = Int.random(in: 0..<(bytes.count - 16), using: &random)
            for i in position..<(position + 16) { copy[i] = UInt8.random(in: 0...255, using: &random) }
            result.append(("16 bytes of noise at \(position)", copy))
        }
        if let pageSize {
            // Page headers (page number, flags, bounds) of every page, LMDB's weakest point.
            for page in 0..<(bytes.count / pageSize) {
                var copy = bytes
                let position = page * pageSize + Int.random(in: 0..<16, using: &random)
                copy[position] ^= UInt8.random(in: 1...255, using: &random)
                result.append(("page \(page) header byte \(position) flipped", copy))
            }
        }
        return result
    }

    /// Opens and reads every object; the outcome ("ok" or the error code).
    static func readEverything(_ url: StoreURL) -> String {
        do {
            let store = try TortureStores.open(url, options: StoreOptions(createsIfMissing: false))
            defer { try? store.close() }
            for entity in store.model.entities {
                _ = try store.fetch(FetchRequest(entityName: entity.name)).snapshots()
                _ = try store.fetch(FetchRequest(entityName: entity.name, resultType: .count)).count()
            }
            return "ok"
        } catch let error as StrataError {
            return error.code.rawValue
        } catch {
            return "untyped \(error)"
        }
    }

    @Test(arguments: ["sqlite", "xml"])
    func aDamagedOrTruncatedStoreFileIsReadOrRefusedWithATypedError(_ scheme: String) throws {
        let bytes = try Self.pristine(scheme)
        var outcomes: [String: Int] = [:]
        let cases = Self.mutations(of: bytes, seed: 42)
        for (label, mutated) in cases {
            let url = temporaryStoreURL(scheme)
            try Data(mutated).write(to: URL(fileURLWithPath: url.location))
            let outcome = Self.readEverything(url)
            outcomes[outcome, default: 0] += 1
            #expect(!outcome.hasPrefix("untyped"), "\(scheme), \(label): \(outcome)")
            #expect(
                ["ok", "storeCorrupt", "modelMismatch", "unsupported"].contains(outcome),
                "\(scheme), \(label): \(outcome)")
            if outcome != "ok" {
                #expect(
                    Array(try Data(contentsOf: URL(fileURLWithPath: url.location))) == mutated,
                    "\(scheme), \(label): a refused file was changed")
            }
            try? FileManager.default.removeItem(atPath: (url.location as NSString).deletingLastPathComponent)
        }
        reportCount(
            "corrupt \(scheme) files: \(cases.count) inputs tried, outcomes \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
        )
    }

    /// The seeds of the damaged LMDB files: 43, or those listed in `STRATA_LMDB_DAMAGE_SEEDS`
    /// (`44,45,46`) to try more files locally.
    static var lmdbDamageSeeds: [UInt64] {
        let listed =
            ProcessInfo.processInfo.environment["STRATA_LMDB_DAMAGE_SEEDS"]?.split(separator: ",").compactMap {
                UInt64($0)
            } ?? []
        return listed.isEmpty ? [43] : listed
    }

    @Test func aDamagedOrTruncatedLMDBDataFileIsReadOrRefusedInAChildProcess() throws {
        let bytes = try Self.pristine("lmdb")
        var outcomes: [String: Int] = [:]
        var crashes: [String] = []
        let cases = Self.lmdbDamageSeeds.flatMap { seed in
            Self.mutations(of: bytes, seed: seed, pageSize: 4096).map { ("seed \(seed), \($0.0)", $0.1) }
        }
        for (label, mutated) in cases {
            let url = temporaryStoreURL("lmdb")
            try FileManager.default.createDirectory(atPath: url.location, withIntermediateDirectories: true)
            try Data(mutated).write(to: URL(fileURLWithPath: url.location + "/data.mdb"))
            let child = try tortureChild(["read", url.description])
            child.finish()
            let outcome: String
            if child.process.terminationReason == .uncaughtSignal {
                outcome = "crash (signal \(child.process.terminationStatus))"
                crashes.append(label)
            } else if let line = child.lines.first {
                outcome = line.hasPrefix("ok") ? "ok" : String(line.split(separator: " ").dropFirst().first ?? "?")
            } else {
                outcome = "no output"
            }
            outcomes[outcome, default: 0] += 1
            // A zero-length data.mdb is an environment LMDB has not written yet: no store in it.
            // A flipped byte inside a record that still decodes (a relationship's target key)
            // cannot be seen without checksums: the child's consistency check reports it
            // (internalInconsistency; seeds 44 to 63 gave two in 5,480 files).
            let allowed =
                ["ok", "storeCorrupt", "modelMismatch", "internalInconsistency"]
                + (mutated.isEmpty ? ["storeNotFound"] : [])
            // No crash at all: the page check refuses damaged pages before liblmdb reads them.
            #expect(allowed.contains(outcome), "lmdb, \(label): \(outcome) \(child.lines)")
            try? FileManager.default.removeItem(atPath: (url.location as NSString).deletingLastPathComponent)
        }
        reportCount(
            "corrupt lmdb files: \(cases.count) inputs tried, outcomes \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"
        )
        if !crashes.isEmpty {
            reportCount("corrupt lmdb files that crashed liblmdb: \(crashes.joined(separator: "; "))")
        }
    }
}
