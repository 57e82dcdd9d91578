import StrataCore

/// Makes a ``ManagedObject`` subclass typed: each stored property becomes an attribute (or, with
/// ``Relationship(inverse:deleteRule:isOptional:minimumCount:maximumCount:renamedFrom:)``, a
/// relationship) whose getter and setter read and write the object's value slot directly.
///
/// ```swift
/// @Managed final class Employee: ManagedObject {
///     var name: String
///     @Attribute(renamedFrom: "birthday") var dateOfBirth: Date?
///     @Attribute(default: 1.7, validation: AttributeValidation(minimum: 0.0, maximum: 3.0)) var height: Double
///     @Relationship(inverse: "employees") var department: Department?      // to-one
///     @Relationship(inverse: "members") var projects: Set<Project>          // to-many
///     @Transient var scratch: [String] = []                                 // not in the model
/// }
/// ```
///
/// The macro generates, for each stored property, accessors that call the typed slot API
/// (``ManagedObject/attributeValue(atSlot:as:)`` and its siblings) with the property's slot, a
/// number fixed at compile time; and the class's ``ManagedObject/declaredProperties``, from
/// which ``Model/init(versionIdentifier:classes:)`` derives the entity. When a coordinator
/// registers the class (``StoreCoordinator/registerClasses(_:)``), each slot is mapped once to
/// the entity's index, so the class also works with a model loaded from a file whose
/// properties are in another order; a property the entity lacks or has with another type is a
/// ``StrataError`` naming the class, property and entity. An access then costs what an access by
/// name costs once the name is found: no reflection, lock or dictionary, and no storage in the
/// object besides its values.
///
/// Rules, each checked at compile time: the class inherits from `ManagedObject` directly;
/// each managed property is a `var` of its own with a type annotation and no initial value (a
/// default goes in `@Attribute(default:)`). Attribute types are those of ``ManagedValue``;
/// relationship types are `Target?`, `Set<Target>` and `[Target]` (ordered) for a typed
/// `Target`. Computed, `static` and `lazy` properties are left alone, and so is a stored
/// property marked ``Transient()``.
@attached(member, names: named(declaredProperties))
@attached(memberAttribute)
public macro Managed() = #externalMacro(module: "StrataMacros", type: "ManagedMacro")

/// Declares options of an attribute of a ``Managed()`` class: its default value for new
/// objects, the name it had in the previous model version (for migrations), and its
/// validation. A stored property without it is an attribute with none of these.
@attached(peer)
public macro Attribute(
    default: (any ManagedValue)? = nil, renamedFrom: String? = nil,
    validation: AttributeValidation = AttributeValidation()
) = #externalMacro(module: "StrataMacros", type: "PropertyMarkerMacro")

/// Declares a relationship of a ``Managed()`` class and its inverse's name on the destination.
/// The property's type gives the kind: `Target?` to-one, `Set<Target>` to-many, `[Target]`
/// ordered to-many. Setting one side updates the inverse at once, as the by-name API does.
@attached(peer)
public macro Relationship(
    inverse: String, deleteRule: StrataCore.Relationship.DeleteRule = .nullify, isOptional: Bool = true,
    minimumCount: Int = 0, maximumCount: Int = 0, renamedFrom: String? = nil
) = #externalMacro(module: "StrataMacros", type: "PropertyMarkerMacro")

/// Leaves a stored property of a ``Managed()`` class out of the model: an ordinary Swift
/// property of the object, never saved. It needs an initial value.
@attached(peer)
public macro Transient() = #externalMacro(module: "StrataMacros", type: "PropertyMarkerMacro")

/// The accessors of one managed property; ``Managed()`` attaches it, with the property's slot.
@attached(accessor)
public macro _ManagedSlot(attribute slot: Int) = #externalMacro(module: "StrataMacros", type: "ManagedSlotMacro")

/// The accessors of one managed relationship; ``Managed()`` attaches it, with the property's slot.
@attached(accessor)
public macro _ManagedSlot(relationship slot: Int) =
    #externalMacro(module: "StrataMacros", type: "ManagedSlotMacro")
