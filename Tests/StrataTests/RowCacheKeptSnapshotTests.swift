import Strata
import StrataEngine
import Testing

/// The row cache's rule for the snapshot a fetch left in a fault: trusted until a change the
/// cache cannot show may have touched the object, and never preferred to a newer cached one.
@Suite struct RowCacheKeptSnapshotTests {
    private func id(_ key: Int64) -> ObjectID {
        ObjectID(entityName: "Record", storeIdentifier: "S", primaryKey: key)
    }

    private func snapshot(_ key: Int64, version: Int64, text: String) -> Snapshot {
        Snapshot(objectID: id(key), version: version, attributes: [.string(text)], relationships: [])
    }

    @Test func aKeptSnapshotIsUsedWhileNothingChangedAndAfterUnrelatedSaves() {
        let cache = RowCache(capacity: 4)
        let epoch = cache.epoch
        let kept = snapshot(1, version: 1, text: "fetched")
        #expect(cache.snapshotToFill(id(1), kept: kept, epoch: epoch) == kept)
        cache.recordSave(written: [snapshot(2, version: 2, text: "other")], deleted: [])
        #expect(cache.snapshotToFill(id(1), kept: kept, epoch: epoch) == kept)
    }

    @Test func aNewerCachedSnapshotWinsOverTheKeptOne() {
        let cache = RowCache(capacity: 4)
        let epoch = cache.epoch
        let kept = snapshot(1, version: 1, text: "fetched")
        let saved = snapshot(1, version: 2, text: "saved")
        cache.recordSave(written: [saved], deleted: [])
        #expect(cache.snapshotToFill(id(1), kept: kept, epoch: epoch) == saved)
    }

    @Test func aRemovedIDIsAskedOfTheStoreByFaultsFetchedBeforeOnly() {
        let cache = RowCache(capacity: 4)
        let before = cache.epoch
        cache.recordSave(written: [], deleted: [id(1)])
        let kept = snapshot(1, version: 1, text: "fetched")
        #expect(cache.snapshotToFill(id(1), kept: kept, epoch: before) == nil)
        #expect(cache.snapshotToFill(id(2), kept: snapshot(2, version: 1, text: "x"), epoch: before) != nil)
        let after = cache.epoch
        cache.remove([id(3)])
        #expect(cache.snapshotToFill(id(1), kept: kept, epoch: after) == kept, "fetched after the delete")
    }

    @Test func aSavedSnapshotTheCacheForgetsMakesOlderKeptSnapshotsUntrusted() {
        let cache = RowCache(capacity: 2)
        let before = cache.epoch
        cache.recordSave(written: [snapshot(1, version: 2, text: "saved")], deleted: [])
        let between = cache.epoch
        // Reads fill the cache past its capacity: the saved snapshot is forgotten.
        cache.store((10..<14).map { snapshot($0, version: 1, text: "read") })
        #expect(cache.snapshot(for: id(1)) == nil)
        #expect(cache.snapshotToFill(id(1), kept: snapshot(1, version: 1, text: "fetched"), epoch: before) == nil)
        let fresh = snapshot(1, version: 2, text: "fetched after the save")
        #expect(cache.snapshotToFill(id(1), kept: fresh, epoch: between) == fresh)
    }
}
