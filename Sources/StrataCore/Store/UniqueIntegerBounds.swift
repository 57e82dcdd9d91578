/// A store that finds the least and greatest stored value of an integer attribute under a
/// unique constraint at the cost of an index lookup (the two ends of the constraint's index).
///
/// Optional. The engine's unique check of a large save asks it first, then asks the store only
/// about the new values that fall between those bounds: a first import into an empty store, or
/// new keys above every stored one, costs two index lookups instead of a fetch per batch of
/// values. A store without it is asked about every new value, as before.
///
/// Adopt it only when both answers are exact for the store's committed state and cost
/// O(log n). The conformance kit compares them with a fetch of every stored value.
public protocol UniqueIntegerBounds: PersistentStore {
    /// The least and greatest non-null values that the stored objects of `entityName` hold for
    /// `attribute`, an integer attribute that makes a unique constraint by itself; `nil` when no
    /// stored object holds a value for it.
    ///
    /// - Throws: ``StrataError/Code/invalidRequest`` when `attribute` is not such an attribute
    ///   of `entityName`, and the store's errors.
    func storedBounds(ofUnique attribute: String, in entityName: String) throws -> ClosedRange<Int64>?
}

extension Model {
    /// Throws ``StrataError/Code/invalidRequest`` unless `attribute` is an integer attribute of
    /// `entityName` that makes a unique constraint by itself (what ``UniqueIntegerBounds`` answers
    /// about); returns the attribute's index.
    public func requireUniqueIntegerAttribute(_ attribute: String, of entityName: String) throws -> Int {
        let entity = try requireEntity(entityName)
        guard let index = entity.attributeIndex(named: attribute),
            entity.attributes[index].type.integerRange != nil, entity.uniqueConstraints.contains([attribute])
        else {
            throw StrataError(
                .invalidRequest,
                "'\(attribute)' is not an integer attribute of '\(entityName)' with a unique constraint of its own",
                location: ["entity": entityName, "attribute": attribute])
        }
        return index
    }
}
