import StrataCore

extension Model {
    /// Derives a model from typed subclasses (``Managed()`` classes): each class's entity has
    /// the class's ``ManagedObject/declaredProperties``, in declaration order, and its
    /// ``ManagedObject/uniqueConstraints`` and ``ManagedObject/indexes``. No reflection: the
    /// declarations are generated at compile time.
    ///
    /// The result has the same structure, and the same ``Model/versionHash``, as the JSON model
    /// that declares the same entities, attributes and relationships.
    ///
    /// - Throws: ``StrataError/Code/invalidModel`` when the classes are inconsistent (an inverse
    ///   that does not exist, a destination class not in `classes`).
    public init(versionIdentifier: String = "", classes: [ManagedObject.Type]) throws {
        let entities = classes.map { type -> Entity in
            var attributes: [Attribute] = []
            var relationships: [Relationship] = []
            for property in type.declaredProperties {
                switch property {
                case .attribute(let attribute): attributes.append(attribute)
                case .relationship(let relationship): relationships.append(relationship)
                }
            }
            return Entity(
                type.entityName, attributes: attributes, relationships: relationships,
                uniqueConstraints: type.uniqueConstraints, indexes: type.indexes)
        }
        try self.init(versionIdentifier: versionIdentifier, entities: entities)
    }
}
