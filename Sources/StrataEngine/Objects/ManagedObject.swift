import StrataCore

/// An object of the graph, owned by one ``ObjectContext``.
///
/// Use it by key, for models loaded from files:
///
/// ```swift
/// let employee = try context.insert("Employee")
/// try employee.set("lxz", for: "name")
/// let height = try employee.value(for: "height", as: Double.self)
/// ```
///
/// or subclass it for typed access (see ``Managed`` and ``Related``):
///
/// ```swift
/// final class Employee: ManagedObject {
///     @Managed var name: String
///     @Managed var height: Double?
///     @Related(inverse: "employees") var department: Department?
/// }
/// ```
///
/// Storage is compact: one array of values and one of relationship targets, indexed like the
/// entity's properties. An object fetched from a store starts as a *fault* (no storage) and
/// fills on first access. Objects are not `Sendable`: pass their ``objectID`` between threads and
/// get the object back with ``ObjectContext/object(with:)`` on the other side.
///
/// Programmer errors (a key the entity does not have, a value of the wrong type through the
/// trapping subscript, an object of another context in a relationship) stop the program with a
/// message naming the entity, key and value; the throwing methods report them as
/// ``StrataError`` instead.
open class ManagedObject: Hashable, CustomStringConvertible {
    /// The object's entity.
    public let entity: Entity

    // The stored state is read and written on every property access. An object is confined to
    // its context's queue, and no accessor lends one of these out across a call that could reach
    // it again, so release builds turn their run-time exclusivity checks off (they were a fifth
    // of the cost of inserting and saving an object); debug builds keep them, so the test suite
    // still catches an overlapping access. The compile-time checks apply to both.
    #if DEBUG
        /// The object's identity; temporary until its first save.
        public internal(set) var objectID: ObjectID
        /// The context the object belongs to (`nil` once the context forgot it).
        public internal(set) weak var context: ObjectContext?
        var attributeValues: [Value] = []
        var relationshipValues: [RelationshipValue] = []
        /// The last state read from or written to the store; `nil` for an inserted object.
        var original: Snapshot?
        var state = State()
    #else
        /// The object's identity; temporary until its first save.
        @exclusivity(unchecked) public internal(set) var objectID: ObjectID
        /// The context the object belongs to (`nil` once the context forgot it).
        @exclusivity(unchecked) public internal(set) weak var context: ObjectContext?
        @exclusivity(unchecked) var attributeValues: [Value] = []
        @exclusivity(unchecked) var relationshipValues: [RelationshipValue] = []
        /// The last state read from or written to the store; `nil` for an inserted object.
        @exclusivity(unchecked) var original: Snapshot?
        @exclusivity(unchecked) var state = State()
    #endif

    struct State {
        var isFault = false
        var isInserted = false
        var isDeleted = false
        var isDirty = false
        var isInvalid = false
        /// While the object is in its context's change set: the slots it may have changed
        /// since it entered (see ``ChangeSet``).
        var changedSlots: UInt64 = 0
    }

    /// Creates an object; contexts call this (``ObjectContext/insert(_:)`` and fetches), not you.
    public required init(entity: Entity, objectID: ObjectID, context: ObjectContext?) {
        self.entity = entity
        self.objectID = objectID
        self.context = context
    }

    /// The entity name a subclass maps to: the class's name unless overridden.
    open class var entityName: String { String(describing: self) }

    /// Unique constraints a subclass declares for model derivation.
    open class var uniqueConstraints: [[String]] { [] }

    /// Indexes a subclass declares for model derivation.
    open class var indexes: [Entity.Index] { [] }

    /// Whether the object's values are not loaded yet.
    public var isFault: Bool { state.isFault }
    /// Whether the object was inserted and not saved yet.
    public var isInserted: Bool { state.isInserted }
    /// Whether the object is deleted and the deletion not saved yet.
    public var isDeleted: Bool { state.isDeleted }
    /// Whether the object has unsaved changes to its values or relationships.
    public var isUpdated: Bool { !state.isInserted && !state.isDeleted && hasChangedValues }
    /// The version of the store state this object was read at (0 when never saved).
    public var version: Int64 { original?.version ?? 0 }

    var hasChangedValues: Bool {
        guard state.isDirty, !state.isFault else { return false }
        guard let original else { return true }
        return original.attributes != attributeValues || original.relationships != relationshipValues
    }

    /// Identity: two references are equal when they are the same object.
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    /// The identity's hash through the standard library's one-word path, as `ObjectIdentifier`
    /// hashes: sets of objects (every notification carries three) build two to three times
    /// faster than through a `Hasher` fed field by field.
    public func _rawHashValue(seed: Int) -> Int { ObjectIdentifier(self)._rawHashValue(seed: seed) }

    /// `Employee p12` plus `(fault)`, `(inserted)`, `(deleted)` or `(updated)`.
    open var description: String {
        var text = objectID.description
        if state.isFault { text += " (fault)" }
        if state.isInserted {
            text += " (inserted)"
        } else if state.isDeleted {
            text += " (deleted)"
        } else if isUpdated {
            text += " (updated)"
        }
        return text
    }

    /// The object's current state as a snapshot (its original version, its current values).
    public func currentSnapshot() -> Snapshot {
        checkConfinement()
        fulfill()
        return Snapshot(
            objectID: objectID, version: original?.version ?? 0, attributes: attributeValues,
            relationships: relationshipValues)
    }

    /// Loads the values of a fault. A fault whose object was deleted from the store becomes
    /// invalid; reading it then stops the program (documented Core Data behaviour: check with
    /// ``ObjectContext/existingObject(with:)`` when an object may be gone).
    func fulfill() {
        guard state.isFault else { return }
        guard let context else {
            preconditionFailure(
                "\(objectID) is a fault whose context is gone; keep the context alive while you use its objects")
        }
        context.fireFault(self)
    }

    /// Fills the object from `snapshot` and clears its changes.
    func apply(_ snapshot: Snapshot) {
        attributeValues = snapshot.attributes
        relationshipValues = snapshot.relationships
        original = snapshot
        state.isFault = false
        state.isDirty = false
    }

    /// Empties the object back into a fault.
    func turnIntoFault() {
        attributeValues = []
        relationshipValues = []
        state.isFault = true
        state.isDirty = false
    }
}
