import StrataCore

extension LMDBStore: KeyPreservingStore {
    /// Raises the entity's sequence in `_seq` to `key` (never lowers it), in a write transaction
    /// of its own, so the reservation holds across processes and reopening.
    public func reserveKeys(through key: Int64, for entityName: String) throws {
        try ensureOpen()
        _ = try layout(entityName)
        guard key >= 1 else {
            throw StrataError(
                .invalidRequest, "cannot reserve keys through \(key): keys start at 1",
                location: ["path": environment.path, "entity": entityName])
        }
        if isReadOnly {
            throw StrataError(
                .readOnly, "the LMDB store at \(environment.path) is open read-only; no keys were reserved",
                location: ["path": environment.path])
        }
        do {
            try environment.write { txn in
                if try sequence(txn, entityName) < key { try setSequence(txn, entityName, key) }
            }
        } catch {
            throw environment.translate(error, doing: "reserving keys")
        }
    }
}
