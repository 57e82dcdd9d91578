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
/// or subclass it for typed access with the ``Managed()`` macro:
///
/// ```swift
/// @Managed final class Employee: ManagedObject {
///     var name: String
///     var height: Double?
///     @Relationship(inverse: "employees") var department: Department?
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
    // it again, so release builds turn their run-time exclusivity checks off; debug builds keep
    // them, so the test suite still catches an overlapping access. The compile-time checks apply
    // to both. (What this buys is measured in Benchmarks/README.md, "Engine complexity that pays".)

    /// The object's identity; temporary until its first save.
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    public internal(set) var objectID: ObjectID
    /// While the object is in its context's change set: the slots it may have changed since it
    /// entered (see ``ChangeSet``).
    ///
    /// Declared right after ``objectID``, whose 12 bytes leave 4 of its 16 free: that is where
    /// these 32 bits go, so that an object of an entity without a subclass is a 104-byte
    /// instance, served from the allocator's 112-byte blocks instead of 128-byte ones (a fetch of
    /// 1,000,000 objects peaks 16 MB lower; Benchmarks/README.md, "An object in 112 bytes").
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    @usableFromInline
    var changedSlots: UInt32 = 0
    /// The context the object belongs to (`nil` once the context forgot it).
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    public internal(set) weak var context: ObjectContext?
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    @usableFromInline
    var attributeValues: [Value] = []
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    var relationshipValues: [RelationshipValue] = []
    /// The last state read from or written to the store; `nil` for an inserted object.
    ///
    /// Kept as its parts, under the object's own ``objectID`` (a snapshot's ID is always the
    /// object's): 24 bytes instead of 40 (see ``changedSlots`` for the object's size).
    var original: Snapshot? {
        get {
            guard let attributes = originalAttributes else { return nil }
            return Snapshot(
                objectID: objectID, version: originalVersion, attributes: attributes,
                relationships: originalRelationships)
        }
        set {
            originalVersion = newValue?.version ?? 0
            originalAttributes = newValue?.attributes
            originalRelationships = newValue?.relationships ?? []
        }
    }
    /// The version of ``original`` (0 when there is none).
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    private var originalVersion: Int64 = 0
    /// The attributes of ``original``; `nil` when there is none.
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    private var originalAttributes: [Value]?
    /// The relationships of ``original``.
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    private var originalRelationships: [RelationshipValue] = []
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    @usableFromInline
    var state = State()
    /// Where the typed slots of the object's class are in its entity (see ``PropertySlots``):
    /// set by the context that makes the object, else bound on first typed access.
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    @usableFromInline
    package var slots: PropertySlots?

    /// The object's flags and the kept snapshot's epoch, in one word (8 bytes where they took
    /// 16: a fetch of 1,000,000 objects peaks 16 MB lower; Benchmarks/README.md, "Engine
    /// complexity that pays"; see ``changedSlots`` for the object's size).
    @usableFromInline
    struct State {
        /// The epoch in the low 56 bits (2^56 saves are out of reach), the flags above it.
        @usableFromInline
        private(set) var word: UInt64 = 0

        private static let epochMask: UInt64 = (1 << 56) - 1
        private static let fault: UInt64 = 1 << 56
        private static let inserted: UInt64 = 1 << 57
        private static let deleted: UInt64 = 1 << 58
        private static let dirty: UInt64 = 1 << 59
        private static let invalid: UInt64 = 1 << 60
        private static let detached: UInt64 = 1 << 61
        private static let writesNeedContext: UInt64 = 1 << 62

        /// For a fault a fetch made: the coordinator's row cache epoch when the
        /// fetch began, the fault's snapshot being kept in `original`; 0 when it holds none.
        var keptSnapshotEpoch: UInt64 {
            get { word & Self.epochMask }
            set {
                assert(newValue <= Self.epochMask, "row cache epoch \(newValue) beyond 56 bits")
                word = word & ~Self.epochMask | newValue & Self.epochMask
            }
        }
        /// Inlinable (the typed slot reads check it): the flag's bit is spelled out, a static
        /// constant read from another module would go through its lazy initializer.
        @usableFromInline
        var isFault: Bool {
            @inlinable get { word & (1 << 56) != 0 }
            set { set(Self.fault, newValue) }
        }
        var isInserted: Bool {
            get { word & Self.inserted != 0 }
            set { set(Self.inserted, newValue) }
        }
        var isDeleted: Bool {
            get { word & Self.deleted != 0 }
            set { set(Self.deleted, newValue) }
        }
        var isDirty: Bool {
            get { word & Self.dirty != 0 }
            set { set(Self.dirty, newValue) }
        }
        var isInvalid: Bool {
            get { word & Self.invalid != 0 }
            set { set(Self.invalid, newValue) }
        }
        /// Made by `prepareDetached()` and not adopted by a context yet.
        var isDetached: Bool {
            get { word & Self.detached != 0 }
            set { set(Self.detached, newValue) }
        }

        /// Whether a write to the object must go through its context even when the attribute
        /// changed already since the object's last save: its context was saving (a journal
        /// hears of every change) or observed by live queries when the object last joined the
        /// change set or was written, or when that began (see ``SaveActivity``).
        var writesNeedContext: Bool {
            get { word & Self.writesNeedContext != 0 }
            set { set(Self.writesNeedContext, newValue) }
        }
        /// Whether a write to an attribute among `changedSlots` needs nothing from the context:
        /// the object is dirty, loaded, valid, not deleted, and its context neither saving nor
        /// observed. One comparison of the flags.
        var isWritableWithoutContext: Bool {
            word & (Self.fault | Self.deleted | Self.dirty | Self.invalid | Self.writesNeedContext) == Self.dirty
        }

        private mutating func set(_ flag: UInt64, _ on: Bool) {
            word = on ? word | flag : word & ~flag
        }
    }

    /// Creates an object; contexts call this (``ObjectContext/insert(_:)`` and fetches), not you.
    public required init(entity: Entity, objectID: ObjectID, context: ObjectContext?) {
        self.entity = entity
        self.objectID = objectID
        self.context = context
    }

    /// The entity name a subclass maps to: the class's name unless overridden.
    open class var entityName: String { String(describing: self) }

    /// The stored properties of a typed subclass, in declaration order: ``Managed()`` generates
    /// this; ``ManagedObject`` itself declares none.
    open class var declaredProperties: [DeclaredProperty] { [] }

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
    public var version: Int64 { originalVersion }

    var hasChangedValues: Bool {
        guard state.isDirty, !state.isFault else { return false }
        guard let original else { return true }
        return original.attributes != attributeValues || original.relationships != relationshipValues
    }

    /// Identity: two references are equal when they are the same object.
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

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
    @inlinable
    func fulfill() {
        if state.isFault { fillFault() }
    }

    /// ``fulfill()`` for a fault: asks its context to fill it.
    @usableFromInline
    func fillFault() {
        guard let context else {
            preconditionFailure(
                "\(objectID) is a fault whose context is gone; keep the context alive while you use its objects")
        }
        context.fireFault(self)
    }

    /// Fills the object from `snapshot` and clears its changes.
    func apply(_ snapshot: consuming Snapshot) {
        attributeValues = snapshot.attributes
        relationshipValues = snapshot.relationships
        original = snapshot
        state.isFault = false
        state.isDirty = false
        state.keptSnapshotEpoch = 0
    }

    /// Fills a fault from the snapshot it keeps (see ``keep(_:epoch:)``), as ``apply(_:)`` with
    /// that snapshot does, without building the snapshot again; `false` when it keeps none.
    func fillFromKeptSnapshot() -> Bool {
        guard let attributes = originalAttributes else { return false }
        attributeValues = attributes
        relationshipValues = originalRelationships
        state.isFault = false
        state.isDirty = false
        state.keptSnapshotEpoch = 0
        return true
    }

    /// Makes the object a fault that holds `snapshot`, read by a fetch begun at coordinator
    /// epoch `epoch`: filling it needs no store round trip while nothing newer is known.
    ///
    /// Takes `snapshot` over: a fetch moves each one it read into its object, with no copy of
    /// its values.
    func keep(_ snapshot: consuming Snapshot, epoch: UInt64) {
        original = snapshot
        state.isFault = true
        state.keptSnapshotEpoch = epoch
    }

    /// Empties the object back into a fault.
    func turnIntoFault() {
        attributeValues = []
        relationshipValues = []
        state.isFault = true
        state.isDirty = false
        state.keptSnapshotEpoch = 0
    }
}
