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
}
