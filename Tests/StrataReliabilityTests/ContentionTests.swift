import Foundation
import StrataCore
import StrataTortureKit
import Testing

/// Two and four processes incrementing the counters of one store with optimistic locking (each
/// increment inserts an Entry in the same save) and reading between saves: no update lost, no
/// save torn, no corrupt file, every failure a typed error (conflicts and busy stores retried).
@Suite struct ContentionTests {
    static let cases: [(String, Int)] = TortureStores.schemes.flatMap { scheme in [(scheme, 2), (scheme, 4)] }

    @Test(arguments: cases)
    func processesIncrementingOneStoreLoseNoUpdate(_ scheme: String, _ processes: Int) throws {
        let operations = scheme == "xml" ? 40 : 150
        let url = temporaryStoreURL(scheme)
        let creating = try TortureStores.open(url)
        _ = try TortureDriver.create(in: creating, seed: 31)
        try creating.close()

        let start = url.location + ".start"
        let children = try (0..<processes).map { worker in
            try tortureChild(["contend", url.description, String(worker), String(operations), "31", start])
        }
        for child in children { _ = child.waitForLine(startingWith: "ready") }
        _ = FileManager.default.createFile(atPath: start, contents: Data())
        var conflicts = 0
        var busy = 0
        var reads = 0
        for (worker, child) in children.enumerated() {
            child.finish()
            #expect(child.process.terminationStatus == 0, "worker \(worker): \(child.lines)")
            guard let done = child.lines.first(where: { $0.hasPrefix("done ") }) else {
                Issue.record("worker \(worker) did not finish: \(child.lines)")
                continue
            }
            let fields = Dictionary(
                uniqueKeysWithValues: done.dropFirst(5).split(separator: " ").compactMap { field -> (String, Int)? in
                    let parts = field.split(separator: "=")
                    return parts.count == 2 ? (String(parts[0]), Int(parts[1]) ?? -1) : nil
                })
            #expect(fields["increments"] == operations)
            conflicts += fields["conflicts"] ?? 0
            busy += fields["busy"] ?? 0
            reads += fields["reads"] ?? 0
        }

        let store = try TortureStores.open(url)
        defer { try? store.close() }
        #expect(try StoreIntegrity.check(url, store: store).isEmpty)
        let total = processes * operations
        let counters = try store.fetch(FetchRequest(entityName: "Counter")).snapshots()
        let sum = counters.reduce(Int64(0)) { sum, counter in
            if case .integer(let value) = counter.attributes[1] { return sum + value }
            return sum
        }
        #expect(sum == Int64(total), "the counters add up to \(sum), \(total) increments were saved")
        #expect(counters.reduce(0) { $0 + Int($1.version - 1) } == total, "every increment bumped one version")
        let entries = try store.fetch(FetchRequest(entityName: "Entry")).snapshots()
        let pairs = Set(entries.map { "\($0.attributes[0])/\($0.attributes[1])" })
        #expect(
            entries.count == total && pairs.count == total,
            "\(entries.count) entries, \(pairs.count) distinct, \(total) expected")
        #expect(Set(entries.map(\.objectID)).count == entries.count, "no key handed out twice across processes")
        reportCount(
            "contention \(scheme) x\(processes): \(total) increments, none lost; \(conflicts) conflicts and \(busy) busy retried, \(reads) reads checked"
        )
    }
}
