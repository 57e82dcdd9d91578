import StrataCore

extension Model {
    /// Derives a model from typed subclasses, reflecting on each class once.
    ///
    /// The result has the same structure, and the same ``Model/versionHash``, as the JSON model
    /// that declares the same entities, attributes and relationships.
    ///
    /// - Throws: ``StrataError/Code/invalidModel`` when the classes are inconsistent (an inverse
    ///   that does not exist, a destination class not in `classes`).
    public init(versionIdentifier: String = "", classes: [ManagedObject.Type]) throws {
        let entities = classes.map { type -> Entity in
            let prototype = type.init(
                entity: Entity(type.entityName), objectID: .temporary(entityName: type.entityName), context: nil)
            var attributes: [Attribute] = []
            var relationships: [Relationship] = []
            var mirror: Mirror? = Mirror(reflecting: prototype)
            var levels: [[Mirror.Child]] = []
            while let current = mirror, current.subjectType != ManagedObject.self {
                levels.insert(Array(current.children), at: 0)
                mirror = current.superclassMirror
            }
            for child in levels.joined() {
                guard let label = child.label, label.hasPrefix("_"),
                    let declaration = child.value as? any PropertyDeclaration
                else { continue }
                switch declaration.declaration(named: String(label.dropFirst())) {
                case .attribute(let a): attributes.append(a)
                case .relationship(let r): relationships.append(r)
                }
            }
            return Entity(
                type.entityName, attributes: attributes, relationships: relationships,
                uniqueConstraints: type.uniqueConstraints, indexes: type.indexes)
        }
        try self.init(versionIdentifier: versionIdentifier, entities: entities)
    }
}
