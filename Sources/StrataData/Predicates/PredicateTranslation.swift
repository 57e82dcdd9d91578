import StrataCore

/// The ``ObjectPredicate`` that means what `predicate` means, for a fetch of `Model` objects.
///
/// - Parameters:
///   - naming: The stored property name of one key path step (`\Trip.name` gives `"name"`), or
///     nil for a property that is not stored (`@Transient`, computed). A name may be dotted
///     (`"destination.name"`) when one step stands for several.
///   - isIdentifier: Whether a key path step reads the object's identifier (`\.persistentModelID`):
///     it compares with the object IDs `objectID` gives for identifiers.
///   - objectID: The object ID of a model instance or identifier captured by the predicate
///     (`$0.trip == trip`), or nil when the value is neither.
/// A model context passes what `@Model` records of each model of its schema:
///
/// ```swift
/// let names = Dictionary(uniqueKeysWithValues: models.flatMap { $0.schemaMetadata.map { ($0.keypath, $0.name) } })
/// let translated = try objectPredicate(
///     predicate, naming: { names[$0] },
///     isIdentifier: { type(of: $0).valueType == PersistentIdentifier.self },
///     objectID: {
///         ($0 as? PersistentIdentifier)?.objectID ?? ($0 as? any PersistentModel)?.persistentModelID.objectID
///     })
/// ```
///
/// - Throws: ``StrataError/Code/invalidPredicate`` naming the expression (`location["expression"]`)
///   and the whole predicate (`location["predicate"]`) when part of it has no Strata counterpart:
///   arithmetic on stored values, `filter`, casts, string functions other than `contains`,
///   `starts(with:)` and `localizedStandardContains`, and conditions on more than one property of
///   a to-many relationship's element.
package func objectPredicate<Model>(
    _ predicate: Predicate<Model>,
    naming: (AnyKeyPath) -> String?,
    isIdentifier: (AnyKeyPath) -> Bool = { _ in false },
    objectID: (Any) throws -> ObjectID? = { _ in nil }
) throws -> ObjectPredicate {
    do {
        return try withoutActuallyEscaping(naming) { naming in
            try withoutActuallyEscaping(isIdentifier) { isIdentifier in
                try withoutActuallyEscaping(objectID) { objectID in
                    let translator = PredicateTranslator(
                        propertyName: naming, isIdentifier: isIdentifier, objectID: objectID)
                    return try translator.translate(predicate.expression, root: predicate.variable)
                }
            }
        }
    } catch var error as StrataError {
        // The expression's own description: `Predicate.description` stops the process on an
        // expression type Foundation does not know (its debug printer requires an internal protocol).
        let text = String(describing: predicate.expression)
        error.location["predicate"] = text.count > 300 ? String(text.prefix(300)) + "…" : text
        throw error
    }
}

/// The Strata sort of `descriptor`: its key path's stored property name, and its order.
///
/// Strings sort by Unicode scalars (Strata's order on every store); `String.StandardComparator`
/// on Linux has only the lexical comparator, which this is.
///
/// - Parameter naming: As for ``objectPredicate(_:naming:isIdentifier:objectID:)``; a dotted name
///   sorts through to-one relationships.
/// - Throws: ``StrataError/Code/invalidPredicate`` when the descriptor has no key path (one
///   decoded without it) or the key path is not a stored property.
package func sort<Model>(_ descriptor: SortDescriptor<Model>, naming: (AnyKeyPath) -> String?) throws -> Sort {
    guard let keyPath = descriptor.keyPath else {
        throw StrataError(
            .invalidPredicate, "a SortDescriptor without a key path cannot sort a Strata fetch",
            location: ["sortDescriptor": String(describing: descriptor)])
    }
    guard let name = naming(keyPath) else {
        throw StrataError(
            .invalidPredicate,
            "a SortDescriptor on \(keyPath) cannot sort a Strata fetch: it is not a stored property of a model",
            location: ["sortDescriptor": String(describing: descriptor), "keyPath": String(describing: keyPath)])
    }
    return Sort(PropertyPath(name), ascending: descriptor.order == .forward)
}

/// The Strata sorts of `descriptors`, in order.
package func sorts<Model>(_ descriptors: [SortDescriptor<Model>], naming: (AnyKeyPath) -> String?) throws -> [Sort] {
    try descriptors.map { try sort($0, naming: naming) }
}
