import StrataCore
@testable import StrataInMemory
import Testing

/// The in-memory table (an array by key for keys handed out in order, a dictionary for the
/// rest) against a plain dictionary, under the same operations.
@Suite struct InMemoryTableTests {
    private func row(_ key: Int64, version: Int64 = 1) -> Snapshot {
        Snapshot(objectID: ObjectID(entityName: "Row", storeIdentifier: "S", primaryKey: key), version: version, attributes: [.integer(key)], relationships: [])
    }

    /// Checks every observable of `table` against `reference`.
    private func expectSame(_ table: InMemoryTable, _ reference: [Int64: Snapshot], probes: [Int64], _ comment: Comment) {
        #expect(table.count == reference.count, comment)
        #expect(table.orderedSnapshots() == reference.keys.sorted().map { reference[$0]! }, comment)
        for key in probes { #expect(table[key] == reference[key], comment) }
    }

    @Test func keysInOrderScatteredAndBelowOneBehaveLikeADictionary() {
        var table = InMemoryTable(), reference: [Int64: Snapshot] = [:]
        func insert(_ key: Int64, version: Int64 = 1) {
            table.insert(row(key, version: version), key: key)
            reference[key] = row(key, version: version)
        }
        func remove(_ key: Int64) {
            table.remove(key: key)
            reference[key] = nil
        }
        let probes: [Int64] = [Int64.min, -5, 0, 1, 2, 500, 1_024, 1_025, 2_048, 3_000, 5_000, 1_000_000, Int64.max]
        for key in Int64(1)...3_000 { insert(key) }
        expectSame(table, reference, probes: probes, "3,000 keys in order")
        // Keys far past the end, below 1, and at the extremes go beside the array.
        for key in [Int64(1_000_000), 0, -5, Int64.max, Int64.min, 10_000] { insert(key) }
        expectSame(table, reference, probes: probes + [10_000], "scattered keys")
        // The array grows over a key the dictionary held: it moves in, counted once.
        for key in Int64(3_001)...10_000 { insert(key, version: 2) }
        expectSame(table, reference, probes: probes + [10_000, 9_999], "grown over 10,000")
        // Replacing keeps the count; removing twice removes once; absent keys change nothing.
        insert(5, version: 7)
        remove(6); remove(6); remove(123_456_789)
        expectSame(table, reference, probes: probes + [5, 6, 7], "replaced and removed")
        // Removing the tail shrinks the array; keys after it still land.
        for key in Int64(9_000)...10_000 { remove(key) }
        insert(10_001); insert(9_500)
        expectSame(table, reference, probes: probes + [9_000, 9_500, 10_001], "tail removed")
        // Removing most rows moves the rest to the dictionary; the table keeps working.
        for key in Int64(1)...8_999 where key % 10 != 0 { remove(key) }
        expectSame(table, reference, probes: probes + [10, 11, 8_990, 9_500], "mostly removed")
        for key in Int64(1)...20 { insert(key, version: 3) }
        expectSame(table, reference, probes: probes + [1, 10, 20, 21], "reinserted")
    }

    @Test func randomOperationsMatchADictionary() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<20 {
            var table = InMemoryTable(), reference: [Int64: Snapshot] = [:]
            let span = Int64([50, 2_000, 100_000][round % 3])
            for step in 0..<3_000 {
                let key = Int64.random(in: -3...span, using: &generator)
                if Int.random(in: 0..<10, using: &generator) < 7 {
                    table.insert(row(key, version: Int64(step)), key: key)
                    reference[key] = row(key, version: Int64(step))
                } else {
                    table.remove(key: key)
                    reference[key] = nil
                }
            }
            expectSame(table, reference, probes: Array(reference.keys.prefix(50)) + [-4, 0, span + 1], "round \(round), keys up to \(span)")
        }
    }
}
