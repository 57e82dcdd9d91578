import StrataCore
import Testing

@testable import StrataInMemory

/// The in-memory table (an array by key for keys handed out in order, a dictionary for the
/// rest) against a plain dictionary, under the same operations.
@Suite struct InMemoryTableTests {
    private func row(_ key: Int64, version: Int64 = 1) -> Snapshot {
        Snapshot(
            objectID: ObjectID(entityName: "Row", storeIdentifier: "S", primaryKey: key), version: version,
            attributes: [.integer(key)], relationships: [])
    }

    /// Checks every observable of `table` against `reference`.
    private func expectSame(_ table: InMemoryTable, _ reference: [Int64: Snapshot], probes: [Int64], _ comment: Comment)
    {
        #expect(table.count == reference.count, comment)
        #expect(table.orderedSnapshots() == reference.keys.sorted().map { reference[$0]! }, comment)
        for key in probes { #expect(table[key] == reference[key], comment) }
    }

    @Test func keysInOrderScatteredAndBelowOneBehaveLikeADictionary() {
        var table = InMemoryTable()
        var reference: [Int64: Snapshot] = [:]
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
        remove(6)
        remove(6)
        remove(123_456_789)
        expectSame(table, reference, probes: probes + [5, 6, 7], "replaced and removed")
        // Removing the tail shrinks the array; keys after it still land.
        for key in Int64(9_000)...10_000 { remove(key) }
        insert(10_001)
        insert(9_500)
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
            var table = InMemoryTable()
            var reference: [Int64: Snapshot] = [:]
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
            expectSame(
                table, reference, probes: Array(reference.keys.prefix(50)) + [-4, 0, span + 1],
                "round \(round), keys up to \(span)")
        }
    }

    /// A store's usual life: keys handed out in order, the oldest rows deleted, a few rows
    /// under scattered keys (a key-preserving import), and mass deletes that leave the array
    /// mostly empty (its rows move to the dictionary and later keys start a new run).
    @Test func churnWithKeysInOrderMatchesADictionary() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<12 {
            var table = InMemoryTable()
            var reference: [Int64: Snapshot] = [:]
            var nextKey: Int64 = 1
            var live: [Int64] = []
            for step in 0..<6_000 {
                let roll = Int.random(in: 0..<100, using: &generator)
                if roll < 55 {
                    let key = nextKey
                    nextKey += 1
                    table.insert(row(key, version: Int64(step)), key: key)
                    reference[key] = row(key, version: Int64(step))
                    live.append(key)
                } else if roll < 75, !live.isEmpty {
                    // The oldest live row goes (or, every fourth round, a random one).
                    let index = round % 4 == 3 ? Int.random(in: 0..<live.count, using: &generator) : 0
                    let key = live.remove(at: index)
                    table.remove(key: key)
                    reference[key] = nil
                } else if roll < 78 {
                    // A scattered key, far ahead, behind, or negative.
                    let key = [
                        nextKey + Int64.random(in: 2_000...50_000, using: &generator),
                        Int64.random(in: -50...0, using: &generator),
                        Int64.random(in: 1...max(1, nextKey), using: &generator),
                    ].randomElement(using: &generator)!
                    table.insert(row(key, version: Int64(step)), key: key)
                    reference[key] = row(key, version: Int64(step))
                } else if roll < 80, live.count > 100 {
                    // A mass delete: all but every twentieth live row.
                    for (index, key) in live.enumerated() where index % 20 != 0 {
                        table.remove(key: key)
                        reference[key] = nil
                    }
                    live = live.enumerated().filter { $0.offset % 20 == 0 }.map(\.element)
                } else if let key = reference.keys.randomElement(using: &generator) {
                    // Replace an existing row (an update).
                    table.update(row(key, version: Int64(step) + 1_000_000), key: key)
                    reference[key] = row(key, version: Int64(step) + 1_000_000)
                }
                if step % 500 == 0 {
                    #expect(table.count == reference.count, "round \(round), step \(step)")
                }
            }
            let probes =
                Array(reference.keys.shuffled(using: &generator).prefix(200)) + [0, -51, nextKey, nextKey + 60_000]
            expectSame(table, reference, probes: probes, "churn round \(round)")
        }
    }

    /// The layout follows the store's life: deleting the oldest rows moves the array's start
    /// forward; a mass delete moves the survivors beside the array and frees it; the next keys
    /// start a new run in an array again (no state where every scan must sort).
    @Test func theArrayFollowsTheKeysInUse() {
        var table = InMemoryTable()
        var reference: [Int64: Snapshot] = [:]
        func insert(_ keys: ClosedRange<Int64>) {
            for key in keys {
                table.insert(row(key), key: key)
                reference[key] = row(key)
            }
        }
        func remove(_ keys: some Sequence<Int64>) {
            for key in keys {
                table.remove(key: key)
                reference[key] = nil
            }
        }
        insert(1...3_000)
        #expect(table.layout == (3_000, 1, 0))
        remove(1...2_000)
        #expect(table.layout.firstArrayKey > 1_000, "the oldest rows' slots were dropped: \(table.layout)")
        #expect(table.layout.arraySlots <= 2_000)
        expectSame(table, reference, probes: [1, 1_999, 2_000, 2_001, 3_000, 3_001], "oldest deleted")
        insert(3_001...6_000)
        remove(stride(from: 2_001, through: 6_000, by: 1).filter { $0 % 10 != 0 })
        #expect(table.layout.arraySlots == 0, "a mostly empty array moves its rows out: \(table.layout)")
        #expect(table.layout.outsideRows == 400)
        insert(6_001...9_000)
        #expect(
            table.layout.arraySlots == 3_000 && table.layout.firstArrayKey == 6_001,
            "new keys start a new run: \(table.layout)")
        expectSame(table, reference, probes: [2_010, 2_011, 5_990, 6_000, 6_001, 9_000, 9_001], "after a new run")
    }
}
