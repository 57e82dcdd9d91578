import StrataCore

/// The typed slot API: what the accessors that `@Managed` generates call, and what any other
/// typed API built on the engine (StrataData's `@Model`) calls for the objects it backs.
///
/// A *slot* is a property's number in its class's ``ManagedObject/declaredProperties``:
/// attributes and relationships are numbered apart, from 0, in declaration order. When a
/// coordinator binds the class to an entity (``StoreCoordinator/registerClasses(_:)``), each slot
/// is mapped once to the entity's index (``PropertySlots``), so an access is an array read, with
/// no lookup by name, lock or dictionary.
///
/// The semantics are those of the by-name API (``value(for:)``, ``set(_:for:)``,
/// ``object(for:)``, ``setObject(_:for:)``, ``setObjects(_:for:)``): debug builds check that the
/// object is used on its context's queue; a read fills a fault; a write fills a fault, checks
/// the value fits the attribute's type, records the change with the context and keeps inverse
/// relationships in step. Accessors cannot throw, so where the by-name API throws (a value that
/// does not fit, a write to a deleted object or one whose context is gone, a target of another
/// context), these stop the program with the same message.
extension ManagedObject {
    /// The value of attribute slot `slot`, as `T` (usually inferred from the property's type).
    ///
    /// Reading a value that is not a `T` (a `nil` for a non-optional property) stops the program
    /// with a message naming the object, the attribute and the value.
    @inlinable
    public func attributeValue<T: ValueConvertible>(atSlot slot: Int, as type: T.Type = T.self) -> T {
        let value = value(atSlot: slot)
        guard let typed = T(strataValue: value) else { slotTypeFailure(slot: slot, value: value, type: T.self) }
        return typed
    }

    /// Sets attribute slot `slot` to `newValue`, converted to a ``Value`` in the caller's module.
    @inlinable
    public func setAttributeValue<T: ValueConvertible>(_ newValue: T, atSlot slot: Int) {
        setValue(newValue.strataValue, atSlot: slot)
    }

    /// The value of attribute slot `slot`, untyped: for typed APIs that convert values
    /// themselves (enumerations stored as their raw value, `Codable` values stored as JSON).
    ///
    /// Inlinable, so that a typed property read is the slot map's and the values' array reads
    /// in the caller, with a call only to fill a fault.
    @inlinable
    public func value(atSlot slot: Int) -> Value {
        checkConfinement("attributeValue(atSlot:)")
        let index = attributeIndex(ofSlot: slot)
        fulfill()
        return attributeValues[index]
    }

    /// Sets attribute slot `slot` to `newValue`, untyped.
    public func setValue(_ newValue: Value, atSlot slot: Int) {
        checkConfinement("setAttributeValue(_:atSlot:)")
        let index = attributeIndex(ofSlot: slot)
        do { try set(newValue, atAttributeIndex: index) } catch { preconditionFailure("\(error)") }
    }

    /// The value of relationship slot `slot`: `Target?`, `Set<Target>` or `[Target]`.
    @inlinable
    public func relationshipValue<T: RelationshipTarget>(atSlot slot: Int, as type: T.Type = T.self) -> T {
        T.make(from: relatedObjects(atSlot: slot))
    }

    /// Sets relationship slot `slot` to `newValue`, keeping the inverse in step.
    @inlinable
    public func setRelationshipValue<T: RelationshipTarget>(_ newValue: T, atSlot slot: Int) {
        setRelatedObjects(newValue.objects, atSlot: slot)
    }

    /// The targets of relationship slot `slot`: none or one for a to-one; in the user's order
    /// for an ordered to-many, by object ID for another to-many.
    public func relatedObjects(atSlot slot: Int) -> [ManagedObject] {
        checkConfinement("relationshipValue(atSlot:)")
        let index = relationshipIndex(ofSlot: slot)
        fulfill()
        guard let context else { return [] }
        return relationshipValues[index].targets.map { context.object(with: $0) }
    }

    /// The IDs of the targets of relationship slot `slot`, without making their objects.
    public func relatedObjectIDs(atSlot slot: Int) -> [ObjectID] {
        checkConfinement("relatedObjectIDs(atSlot:)")
        let index = relationshipIndex(ofSlot: slot)
        fulfill()
        return relationshipValues[index].targets
    }

    /// Sets the targets of relationship slot `slot` (at most one for a to-one), keeping every
    /// inverse in step.
    public func setRelatedObjects(_ targets: [ManagedObject], atSlot slot: Int) {
        checkConfinement("setRelationshipValue(_:atSlot:)")
        let index = relationshipIndex(ofSlot: slot)
        do {
            if entity.relationships[index].isToMany {
                try setObjects(targets, atRelationshipIndex: index)
            } else {
                precondition(
                    targets.count <= 1,
                    "\(objectID): '\(entity.name).\(entity.relationships[index].name)' is to-one and cannot hold \(targets.count) objects"
                )
                try setObject(targets.first, atRelationshipIndex: index)
            }
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// The entity's index of attribute slot `slot`, from the object's slot map: the one its
    /// context gave it, else (an object made by hand) its class's, bound to its entity now.
    ///
    /// The map is read where it is stored: returned from a computed property first, it was
    /// retained and released with its array on every typed read (two retains and two releases).
    @inlinable
    func attributeIndex(ofSlot slot: Int) -> Int {
        if let slots { return slots.attributes[slot] }
        return bindSlots().attributes[slot]
    }

    /// The entity's index of relationship slot `slot` (see ``attributeIndex(ofSlot:)``).
    func relationshipIndex(ofSlot slot: Int) -> Int {
        if let slots { return slots.relationships[slot] }
        return bindSlots().relationships[slot]
    }

    @inline(never)
    @usableFromInline
    func bindSlots() -> PropertySlots {
        let type = Swift.type(of: self)
        do {
            let bound = try PropertySlots(binding: type.declaredProperties, of: "\(type)", to: entity)
            slots = bound
            return bound
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// Stops the program: attribute slot `slot` holds `value`, which is not a `T`.
    @usableFromInline
    func slotTypeFailure<T>(slot: Int, value: Value, type: T.Type) -> Never {
        let name = entity.attributes[attributeIndex(ofSlot: slot)].name
        preconditionFailure(
            "\(objectID).\(name) holds \(value), which is not a \(T.self): the class and the model disagree")
    }
}
