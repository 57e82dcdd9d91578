import Strata

extension ObjectContext {
    /// Inserts an `Item` for each of `keys`, its `key` attribute set to the key (the entity of
    /// the unique-check suites); returns them in order.
    @discardableResult
    func insertItems(_ keys: some Sequence<Int64>) throws -> [ManagedObject] {
        try keys.map { key in
            let item = try insert("Item")
            item["key"] = .integer(key)
            return item
        }
    }
}
