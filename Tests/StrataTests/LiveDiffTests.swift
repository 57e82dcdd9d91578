import StrataCore
import StrataEngine
import StrataTestSupport
import Testing

/// A live diff turns its previous result into its new one, and reports the fewest changes:
/// on random pairs of results, on results that only gained or only lost objects (which take one
/// walk of both), and with renames.
@Suite struct LiveDiffTests {
    static func id(_ key: Int) -> ObjectID {
        ObjectID(entityName: "Item", storeIdentifier: "S", primaryKey: Int64(key))
    }

    /// Random pairs: a shuffled, trimmed and grown copy of a random result, with some updated.
    @Test(arguments: 0..<200)
    func aDiffAppliedToTheOldResultGivesTheNewOne(seed: Int) {
        var random = SeededGenerator(seed: UInt64(seed))
        let old = (0..<Int.random(in: 0..<40, using: &random)).map { Self.id($0) }
        var new = old.filter { _ in Int.random(in: 0..<5, using: &random) != 0 }
        switch seed % 4 {
        case 0: new = old // nothing changed
        case 1: new += (100..<(100 + Int.random(in: 0..<5, using: &random))).map { Self.id($0) } // only gained
        case 2: break // only lost
        default:
            new.shuffle(using: &random)
            new.insert(contentsOf: (200..<(200 + Int.random(in: 0..<5, using: &random))).map { Self.id($0) }, at: 0)
        }
        if seed % 4 == 1 { new.shuffle(using: &random) }
        let updated = Set(new.filter { _ in Bool.random(using: &random) })
        let diff = LiveDiff(from: old, to: new, updating: updated)
        #expect(diff.applied(to: old) == new, "seed \(seed)")
        #expect(diff.inserted.map(\.objectID).allSatisfy { !old.contains($0) })
        #expect(diff.deleted.map(\.objectID).allSatisfy { !new.contains($0) })
        #expect(Set(diff.updated.map(\.objectID)) == updated.intersection(old))
        #expect(diff.updated.map(\.index) == diff.updated.map(\.index).sorted())
        for change in diff.updated { #expect(new[change.index] == change.objectID) }
        #expect(diff.isEmpty == (old == new && updated.intersection(old).isEmpty))
    }

    @Test func objectsAddedAmongTheOthersAreInsertionsAlone() {
        let old = (0..<10).map { Self.id($0 * 2) }
        let new = (0..<20).map { Self.id($0) }
        let diff = LiveDiff(from: old, to: new, updating: [Self.id(4), Self.id(5)])
        #expect(diff.inserted.map(\.index) == Array(stride(from: 1, to: 20, by: 2)))
        #expect(diff.deleted.isEmpty && diff.moved.isEmpty)
        #expect(diff.updated == [LiveDiff.Change(objectID: Self.id(4), index: 4)])
        #expect(diff.applied(to: old) == new)
        let back = LiveDiff(from: new, to: old, updating: [Self.id(4)])
        #expect(back.deleted.map(\.index) == Array(stride(from: 1, to: 20, by: 2)))
        #expect(back.inserted.isEmpty && back.moved.isEmpty)
        #expect(back.updated == [LiveDiff.Change(objectID: Self.id(4), index: 2)])
        #expect(back.applied(to: new) == old)
    }

    @Test func renamedObjectsKeepTheirRows() {
        let temporary = ObjectID.temporary(entityName: "Item")
        let old = [Self.id(1), temporary, Self.id(3)]
        let new = [Self.id(1), Self.id(2), Self.id(3), Self.id(4)]
        let diff = LiveDiff(from: old, to: new, renaming: [temporary: Self.id(2)])
        #expect(diff.renamed == [LiveDiff.Rename(previousID: temporary, objectID: Self.id(2), index: 1)])
        #expect(diff.inserted == [LiveDiff.Change(objectID: Self.id(4), index: 3)])
        #expect(diff.deleted.isEmpty && diff.moved.isEmpty)
        #expect(diff.applied(to: old) == new)
    }

    /// A result reordered only within short stretches (renamed objects changing places among
    /// their ties) is diffed stretch by stretch: the general algorithm sees those alone.
    @Test func reorderingsWithinStretchesAreDiffedThereAlone() {
        let old = (0..<10_000).map { Self.id($0) }
        var new = old
        let swapped = stride(from: 5, to: 10_000, by: 500).map { $0 }
        for index in swapped { new.swapAt(index, index + 1) }
        // A stretch of three: the first goes last.
        new[9_990...9_992] = [old[9_991], old[9_992], old[9_990]]
        var generallyDiffed = 0
        let diff = LiveDiff(
            from: old, to: new, updating: [Self.id(6), Self.id(7_000)], renaming: [:],
            generallyDiffed: &generallyDiffed)
        #expect(generallyDiffed == 2 * swapped.count + 3)
        #expect(diff.moved.count == swapped.count + 1)
        #expect(diff.inserted.isEmpty && diff.deleted.isEmpty)
        #expect(
            diff.updated == [
                LiveDiff.Change(objectID: Self.id(6), index: 5), .init(objectID: Self.id(7_000), index: 7_000),
            ])
        #expect(diff.moved.map(\.to) == diff.moved.map(\.to).sorted())
        #expect(diff.applied(to: old) == new)
    }

    /// Random reorderings within random stretches, with renames: the diff turns the old result
    /// into the new one with the fewest moves (one less than each stretch's length when each
    /// stretch is rotated by one).
    @Test(arguments: 0..<50)
    func rotatedStretchesTakeOneMoveEach(seed: Int) {
        var random = SeededGenerator(seed: UInt64(seed))
        let count = Int.random(in: 1..<300, using: &random)
        var old = (0..<count).map { Self.id($0) }
        var new = old
        var rotated = 0
        var start = 0
        while start < count {
            let length = Int.random(in: 1..<6, using: &random)
            let end = Swift.min(start + length, count)
            if end - start > 1 && Bool.random(using: &random) {
                new[start..<end] = new[(start + 1)..<end] + [new[start]]
                rotated += 1
            }
            start = end
        }
        var renaming: [ObjectID: ObjectID] = [:]
        for index in old.indices where Int.random(in: 0..<4, using: &random) == 0 {
            let temporary = ObjectID.temporary(entityName: "Item")
            renaming[temporary] = old[index]
            old[index] = temporary
        }
        let updated = Set(new.filter { _ in Int.random(in: 0..<5, using: &random) == 0 })
        let diff = LiveDiff(from: old, to: new, updating: updated, renaming: renaming)
        #expect(diff.applied(to: old) == new, "seed \(seed)")
        #expect(diff.moved.count == rotated, "seed \(seed)")
        #expect(diff.renamed.count == renaming.count)
        #expect(Set(diff.updated.map(\.objectID)) == updated)
        #expect(diff.updated.map(\.index) == diff.updated.map(\.index).sorted())
    }
}
