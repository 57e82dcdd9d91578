import StrataCore

extension InMemoryStore: KeyPreservingStore {
    /// Raises the entity's next key above `key`, so saves may insert under any key up to it and
    /// ``obtainPermanentIDs(for:count:)`` hands out only larger ones. The named storage keeps the
    /// reservation for later opens in this process.
    public func reserveKeys(through key: Int64, for entityName: String) throws {
        try checkWritable()
        _ = try model.requireEntity(entityName)
        guard key >= 1 else {
            throw StrataError(
                .invalidRequest, "cannot reserve keys through \(key): keys start at 1",
                location: ["entity": entityName, "url": url.description])
        }
        guard key < Int64.max else {
            throw StrataError(
                .invalidRequest, "cannot reserve keys through \(key): no key would be left to hand out",
                location: ["entity": entityName, "url": url.description])
        }
        storage.state.withLock { state in
            state.nextKeys[entityName] = max(state.nextKeys[entityName] ?? 1, key + 1)
        }
    }
}
