import Strata
import StrataEngine
import Testing

/// The row cache forgets by generation: when full it drops the half it filled longest ago, not
/// everything, and a read of more rows than it holds caches only the last of them.
@Suite struct RowCacheGenerationTests {
    private func snapshot(_ key: Int64) -> Snapshot {
        Snapshot(
            objectID: ObjectID(entityName: "Record", storeIdentifier: "S", primaryKey: key), version: 1,
            attributes: [.integer(key)], relationships: [])
    }

    @Test func aFullCacheKeepsItsNewerHalf() {
        let cache = RowCache(capacity: 4)
        for key in Int64(1)...5 { cache.store([snapshot(key)]) }
        #expect(cache.count <= 4)
        #expect(cache.snapshot(for: snapshot(5).objectID) != nil)
        #expect(cache.snapshot(for: snapshot(4).objectID) != nil, "the rows before the newest stay")
        #expect(cache.snapshot(for: snapshot(3).objectID) != nil)
        #expect(cache.snapshot(for: snapshot(1).objectID) == nil)
    }

    @Test func aReadLargerThanTheCacheKeepsItsLastRows() {
        let cache = RowCache(capacity: 10)
        cache.store((1...1_000).map(snapshot))
        #expect(cache.count <= 10)
        #expect(cache.count >= 5)
        #expect(cache.snapshot(for: snapshot(1_000).objectID) != nil)
        #expect(cache.snapshot(for: snapshot(996).objectID) != nil)
        #expect(cache.snapshot(for: snapshot(1).objectID) == nil)
    }

    @Test func aCacheOfOneHoldsOneSnapshot() {
        let cache = RowCache(capacity: 1)
        for key in Int64(1)...3 { cache.store([snapshot(key)]) }
        #expect(cache.count == 1)
        #expect(cache.snapshot(for: snapshot(3).objectID) != nil)
    }
}
