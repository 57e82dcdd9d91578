import StrataCore

/// Declares what a typed property means in the model: implemented by ``Managed`` and ``Related``.
package protocol PropertyDeclaration {
    /// The attribute or relationship this property declares, given its name.
    func declaration(named name: String) -> DeclaredProperty
    /// Set on a prototype to find which stored property a key path names.
    var isProbe: Bool { get set }
}

/// What a typed property declares.
package enum DeclaredProperty {
    /// An attribute.
    case attribute(Attribute)
    /// A relationship.
    case relationship(Relationship)
}

/// A typed attribute of a ``ManagedObject`` subclass:
///
/// ```swift
/// final class Employee: ManagedObject {
///     @Managed var name: String
///     @Managed(default: 1.7, validation: AttributeValidation(minimum: 0, maximum: 3)) var height: Double
///     @Managed(renamedFrom: "birthday") var dateOfBirth: Date?
/// }
/// ```
///
/// Reads and writes go straight to the object's compact storage. The property's name is found
/// once per class and key path (by reflection on a prototype), never per object or access.
@propertyWrapper
public struct Managed<T: ManagedValue>: PropertyDeclaration {
    let defaultValue: T?
    let renamedFrom: String?
    let validation: AttributeValidation
    var slot: Int = -1
    /// Used once per class to find the property's name.
    package var isProbe = false

    /// Declares an attribute; its type comes from `T`.
    public init(
        default defaultValue: T? = nil, renamedFrom: String? = nil,
        validation: AttributeValidation = AttributeValidation()
    ) {
        self.defaultValue = defaultValue
        self.renamedFrom = renamedFrom
        self.validation = validation
    }

    /// The attribute this property declares.
    package func declaration(named name: String) -> DeclaredProperty {
        let value = defaultValue?.strataValue
        return .attribute(
            Attribute(
                name, T.attributeType, isOptional: T.isOptionalAttribute,
                defaultValue: value.flatMap { $0.isNull ? nil : $0 },
                renamingIdentifier: renamedFrom, validation: validation))
    }

    /// Not available: the value lives in the enclosing object.
    @available(*, unavailable, message: "@Managed is only for properties of ManagedObject subclasses")
    public var wrappedValue: T {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }

    /// Reads and writes through the enclosing object.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, T>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> T {
        get {
            object.checkConfinement()
            let index = object.slot(for: storageKeyPath, cached: object[keyPath: storageKeyPath].slot) {
                object[keyPath: storageKeyPath].slot = $0
            }
            object.fulfill()
            let value = object.attributeValues[index]
            guard let typed = T(strataValue: value) else {
                preconditionFailure(
                    "\(object.objectID).\(object.entity.attributes[index].name) holds \(value), which is not a \(T.self): the class and the model disagree"
                )
            }
            return typed
        }
        set {
            let index = object.slot(for: storageKeyPath, cached: object[keyPath: storageKeyPath].slot) {
                object[keyPath: storageKeyPath].slot = $0
            }
            do { try object.set(newValue, for: object.entity.attributes[index].name) } catch {
                preconditionFailure("\(error)")
            }
        }
    }
}

/// A typed relationship of a ``ManagedObject`` subclass. The type says the kind: `Department?`
/// is to-one, `Set<Employee>` to-many, `[Employee]` ordered to-many.
///
/// ```swift
/// @Related(inverse: "employees") var department: Department?
/// @Related(inverse: "department", deleteRule: .cascade) var employees: Set<Employee>
/// ```
///
/// Setting one side updates the inverse at once, as the key-based API does.
@propertyWrapper
public struct Related<T: RelationshipTarget>: PropertyDeclaration {
    let inverse: String
    let deleteRule: Relationship.DeleteRule
    let isOptional: Bool
    let minimumCount: Int
    let maximumCount: Int
    let renamedFrom: String?
    var slot: Int = -1
    /// Used once per class to find the property's name.
    package var isProbe = false

    /// Declares a relationship and its inverse's name on the destination.
    public init(
        inverse: String, deleteRule: Relationship.DeleteRule = .nullify, isOptional: Bool = true,
        minimumCount: Int = 0, maximumCount: Int = 0, renamedFrom: String? = nil
    ) {
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.minimumCount = minimumCount
        self.maximumCount = maximumCount
        self.renamedFrom = renamedFrom
    }

    /// The relationship this property declares.
    package func declaration(named name: String) -> DeclaredProperty {
        .relationship(
            Relationship(
                name, to: T.destinationType.entityName, inverse: inverse, toMany: T.isToMany, ordered: T.isOrdered,
                isOptional: isOptional, deleteRule: deleteRule, minimumCount: minimumCount, maximumCount: maximumCount,
                renamingIdentifier: renamedFrom))
    }

    /// Not available: the value lives in the enclosing object.
    @available(*, unavailable, message: "@Related is only for properties of ManagedObject subclasses")
    public var wrappedValue: T {
        get { fatalError("unavailable") }
        set { fatalError("unavailable") }
    }

    /// Reads and writes through the enclosing object.
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, T>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> T {
        get {
            object.checkConfinement()
            let index = object.slot(
                for: storageKeyPath, cached: object[keyPath: storageKeyPath].slot, relationship: true
            ) { object[keyPath: storageKeyPath].slot = $0 }
            object.fulfill()
            guard let context = object.context else { return T.make(from: []) }
            return T.make(from: object.relationshipValues[index].targets.map { context.object(with: $0) })
        }
        set {
            let index = object.slot(
                for: storageKeyPath, cached: object[keyPath: storageKeyPath].slot, relationship: true
            ) { object[keyPath: storageKeyPath].slot = $0 }
            let name = object.entity.relationships[index].name
            do {
                if T.isToMany {
                    try object.setObjects(newValue.objects, for: name)
                } else {
                    try object.setObject(newValue.objects.first, for: name)
                }
            } catch {
                preconditionFailure("\(error)")
            }
        }
    }
}

/// A key path as a dictionary key. Key paths are immutable values, so sharing one is safe.
struct KeyPathKey: Hashable, @unchecked Sendable {
    let keyPath: AnyKeyPath
}

/// Property names of typed subclasses by class and key path, found once by reflection.
enum PropertyNames {
    private static let table = Locked<[ObjectIdentifier: [KeyPathKey: String]]>([:])

    static func name<Object: ManagedObject, W: PropertyDeclaration>(
        of keyPath: ReferenceWritableKeyPath<Object, W>, in type: Object.Type
    ) -> String {
        let classKey = ObjectIdentifier(type)
        if let name = table.withLock({ $0[classKey]?[KeyPathKey(keyPath: keyPath)] }) { return name }
        let prototype = type.init(
            entity: Entity(type.entityName), objectID: .temporary(entityName: type.entityName), context: nil)
        prototype[keyPath: keyPath].isProbe = true
        let label = Mirror(reflecting: prototype).children.first {
            ($0.value as? any PropertyDeclaration)?.isProbe == true
        }?.label
        guard let label, label.hasPrefix("_") else {
            preconditionFailure("cannot find the property of \(keyPath) in \(type)")
        }
        let name = String(label.dropFirst())
        table.withLock { $0[classKey, default: [:]][KeyPathKey(keyPath: keyPath)] = name }
        return name
    }
}

extension ManagedObject {
    /// The index of the attribute (or, with `relationship`, the relationship) that `keyPath`'s
    /// property names: `cached` when the wrapper already knows it, else resolved once and passed
    /// to `store` for the wrapper to keep.
    func slot<Object: ManagedObject, W: PropertyDeclaration>(
        for keyPath: ReferenceWritableKeyPath<Object, W>, cached: Int,
        relationship: Bool = false, store: (Int) -> Void
    ) -> Int {
        if cached >= 0 { return cached }
        let name = PropertyNames.name(of: keyPath, in: Object.self)
        guard let index = relationship ? entity.relationshipIndex(named: name) : entity.attributeIndex(named: name)
        else {
            preconditionFailure(
                "\(Object.self).\(name) is not \(relationship ? "a relationship" : "an attribute") of entity '\(entity.name)' in this model"
            )
        }
        store(index)
        return index
    }
}
