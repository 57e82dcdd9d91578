import Foundation
import StrataCore
@testable import StrataSQLite
import StrataTestSupport

/// A probe store with the Counter object (key 1) at 0.
func makeProbeStore() throws -> (url: StoreURL, store: SQLiteStore) {
    let url = temporaryStoreURL()
    // A long busy timeout: on a loaded machine the other process may hold the lock a while.
    let store = try openStore(url, model: try ProbeModels.sqlite(), options: StoreOptions(options: ["busyTimeout": "20000"]))
    let counter = try store.obtainPermanentIDs(for: "Counter", count: 1)[0]
    try store.save(SaveRequest(inserts: [Snapshot(objectID: counter, version: 0, attributes: [.integer(0)], relationships: [])]))
    return (url, store)
}
