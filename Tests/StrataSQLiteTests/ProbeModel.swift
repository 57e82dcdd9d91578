import Foundation
import StrataCore
@testable import StrataSQLite

/// The model `strata-sqlite-probe` opens its stores with (keep the two in step).
func probeModel() throws -> Model {
    try Model(versionIdentifier: "probe", entities: [
        Entity("Entry", attributes: [Attribute("tag", .string), Attribute("serial", .integer64), Attribute("payload", .string, isOptional: true)]),
        Entity("Counter", attributes: [Attribute("value", .integer64)]),
    ])
}

/// A probe store with the Counter object (key 1) at 0.
func makeProbeStore() throws -> (url: StoreURL, store: SQLiteStore) {
    let url = temporaryStoreURL()
    // A long busy timeout: on a loaded machine the other process may hold the lock a while.
    let store = try openStore(url, model: try probeModel(), options: StoreOptions(values: ["busyTimeout": "20000"]))
    let counter = try store.obtainPermanentIDs(for: "Counter", count: 1)[0]
    try store.save(SaveRequest(inserts: [Snapshot(objectID: counter, version: 0, attributes: [.integer(0)], relationships: [])]))
    return (url, store)
}
