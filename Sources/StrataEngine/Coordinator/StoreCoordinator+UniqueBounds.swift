import StrataCore

extension StoreCoordinator {
    /// The least and greatest values stored for `attribute`, an integer attribute of
    /// `entityName` that makes a unique constraint by itself, when the entity's store finds them
    /// at the cost of an index lookup (``UniqueIntegerBounds``): `.some(nil)` when no stored
    /// object holds a value; `nil` when the store cannot tell cheaply.
    func storedUniqueBounds(of attribute: String, in entityName: String) throws -> ClosedRange<Int64>?? {
        guard let store = try store(for: entityName).capability((any UniqueIntegerBounds).self) else { return nil }
        return .some(try store.storedBounds(ofUnique: attribute, in: entityName))
    }
}
