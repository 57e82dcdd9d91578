import Strata

extension Entity {
    /// The entity of the unique-check suites: `Item`, with a unique integer `key` and an optional
    /// `note`.
    static let uniqueItem = Entity(
        "Item", attributes: [Attribute("key", .integer64), Attribute("note", .string, isOptional: true)],
        uniqueConstraints: [["key"]])
}

extension ObjectContext {
    /// Inserts an ``Entity/uniqueItem`` for each of `keys`, its `key` attribute set to the key;
    /// returns them in order.
    @discardableResult
    func insertItems(_ keys: some Sequence<Int64>) throws -> [ManagedObject] {
        try keys.map { key in
            let item = try insert("Item")
            item["key"] = .integer(key)
            return item
        }
    }
}
