import Foundation
import StrataCore

/// The stored property names of a schema's models by key path, for translating predicates and
/// sorts: built once per container from every model's `schemaMetadata`.
struct ModelKeyPaths: @unchecked Sendable {
    // Key paths are immutable values; sharing them between threads is safe.
    private let names: [AnyKeyPath: String]
    private let identifiers: Set<AnyKeyPath>
    /// The translations of predicates on these models, kept per predicate shape.
    let predicates: PredicateTranslationCache

    init(_ types: [any PersistentModel.Type]) {
        var names: [AnyKeyPath: String] = [:]
        var identifiers: Set<AnyKeyPath> = []
        func add<M: PersistentModel>(_: M.Type) {
            for property in M.schemaMetadata { names[property.keypath] = property.name }
            identifiers.insert(\M.persistentModelID)
            identifiers.insert(\M.id)
        }
        for type in types { add(type) }
        self.names = names
        self.identifiers = identifiers
        predicates = PredicateTranslationCache(
            naming: { names[$0] }, isIdentifier: { identifiers.contains($0) }, objectID: Self.objectID(of:))
    }

    /// The stored property `keyPath` names, or `nil` when it is not one.
    func name(of keyPath: AnyKeyPath) -> String? { names[keyPath] }

    /// Whether `keyPath` reads a model's identifier.
    func isIdentifier(_ keyPath: AnyKeyPath) -> Bool { identifiers.contains(keyPath) }

    /// The object ID of a model or identifier a predicate captured.
    static func objectID(of value: Any) -> ObjectID? {
        if let model = value as? any PersistentModel { return model.managedObject.objectID }
        if let identifier = value as? PersistentIdentifier { return identifier.objectID }
        return nil
    }
}
