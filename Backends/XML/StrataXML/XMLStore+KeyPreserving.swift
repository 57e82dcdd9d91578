import StrataCore

extension XMLStore: KeyPreservingStore {
    /// Raises the entity's next key above `key` (never lowers it). Like the keys
    /// ``obtainPermanentIDs(for:count:)`` hands out, the reservation is written to the file with
    /// the next save: a reservation no save followed is forgotten on reopening, which is harmless
    /// because no stored object holds those keys.
    public func reserveKeys(through key: Int64, for entityName: String) throws {
        let e = try entityIndex(entityName)
        guard key >= 1 else {
            throw StrataError(.invalidRequest, "cannot reserve keys through \(key): keys start at 1", location: ["entity": entityName, "path": path])
        }
        guard key < Int64.max else {
            throw StrataError(.invalidRequest, "cannot reserve keys through \(key): no key would be left to hand out", location: ["entity": entityName, "path": path])
        }
        try state.withLock { state in
            try checkOpen(state)
            if options.readOnly {
                throw StrataError(.readOnly, "the XML store \(path) was opened read-only", location: ["path": path])
            }
            state.image.nextKeys[e] = max(state.image.nextKeys[e], key + 1)
        }
    }
}
