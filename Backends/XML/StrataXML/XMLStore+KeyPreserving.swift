import StrataCore

extension XMLStore: KeyPreservingStore {
    /// Raises the entity's next key above `key` (never lowers it). Like the keys
    /// ``obtainPermanentIDs(for:count:)`` hands out, the reservation is recorded in the key ledger
    /// (`NAME.keys`, synced) before this returns, so it holds after reopening even when no save
    /// followed, and a second store open on the same file never hands those keys out.
    public func reserveKeys(through key: Int64, for entityName: String) throws {
        let e = try entityIndex(entityName)
        guard key >= 1 else {
            throw StrataError(
                .invalidRequest, "cannot reserve keys through \(key): keys start at 1",
                location: ["entity": entityName, "path": path])
        }
        guard key < Int64.max else {
            throw StrataError(
                .invalidRequest, "cannot reserve keys through \(key): no key would be left to hand out",
                location: ["entity": entityName, "path": path])
        }
        try takeKeys(through: key, entity: e)
    }
}
