import StrataCore

/// A stored property of a typed class, as the model sees it: what `@Managed` generates in the
/// class's ``ManagedObject/declaredProperties``, in declaration order. Attributes and
/// relationships are numbered apart: the k-th attribute (relationship) of the list is *slot* k,
/// which the typed slot API (``ManagedObject/attributeValue(atSlot:as:)``) reads.
///
/// Another typed API (StrataData's `@Model`) builds the same list for the entity it backs, with
/// ``attribute(_:)-swift.enum.case`` for any attribute type it stores.
public enum DeclaredProperty: Sendable, Hashable {
    /// An attribute.
    case attribute(Attribute)
    /// A relationship.
    case relationship(Relationship)

    /// The property's name.
    public var name: String {
        switch self {
        case .attribute(let attribute): attribute.name
        case .relationship(let relationship): relationship.name
        }
    }

    /// An attribute of Swift type `T`, which gives the attribute type and whether it is optional.
    /// The arguments are the ones of `@Attribute`.
    public static func attribute<T: ManagedValue>(
        _ name: String, _ type: T.Type, default defaultValue: T? = nil, renamedFrom: String? = nil,
        validation: AttributeValidation = AttributeValidation()
    ) -> DeclaredProperty {
        let value = defaultValue?.strataValue
        return .attribute(
            Attribute(
                name, T.attributeType, isOptional: T.isOptionalAttribute,
                defaultValue: value.flatMap { $0.isNull ? nil : $0 },
                renamingIdentifier: renamedFrom, validation: validation))
    }

    /// A relationship of Swift type `T` (`Target?` to-one, `Set<Target>` to-many, `[Target]`
    /// ordered to-many) whose inverse on the destination is `inverse`. The arguments are the
    /// ones of `@Relationship`.
    public static func relationship<T: RelationshipTarget>(
        _ name: String, _ type: T.Type, inverse: String, deleteRule: Relationship.DeleteRule = .nullify,
        isOptional: Bool = true, minimumCount: Int = 0, maximumCount: Int = 0, renamedFrom: String? = nil
    ) -> DeclaredProperty {
        .relationship(
            Relationship(
                name, to: T.destinationType.entityName, inverse: inverse, toMany: T.isToMany, ordered: T.isOrdered,
                isOptional: isOptional, deleteRule: deleteRule, minimumCount: minimumCount, maximumCount: maximumCount,
                renamingIdentifier: renamedFrom))
    }
}
