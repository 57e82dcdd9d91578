import Foundation
import StrataCore
import StrataEngine

/// The models a container stores: SwiftData's `Schema`.
///
/// ```swift
/// let schema = Schema([Trip.self])   // BucketListItem and LivingAccommodation come with Trip
/// ```
///
/// The models each type relates to join the schema by themselves. A schema is checked when a
/// ``ModelContainer`` opens it: a property of a type a model cannot store, or a relationship
/// with no inverse, fails the container with an error naming them.
public final class Schema: Sendable {
    /// A model version: `Schema.Version(1, 0, 0)`. It encodes as `{"major":1,"minor":0,"patch":0}`.
    public struct Version: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
        /// The version's parts.
        public let major: Int, minor: Int, patch: Int
        /// Creates a version.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            (self.major, self.minor, self.patch) = (major, minor, patch)
        }
        /// `1.0.0`.
        public var description: String { "\(major).\(minor).\(patch)" }
        /// Orders by major, minor, patch.
        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }
    }

    /// An entity of the schema: a model type's name and its stored properties.
    public struct Entity: Sendable, Hashable {
        /// The entity's name (the model's class name).
        public let name: String
        /// The names of its attributes, in declaration order.
        public let attributeNames: [String]
        /// The names of its relationships, in declaration order.
        public let relationshipNames: [String]
    }

    /// The schema's version.
    public let version: Version
    /// Every entity, the related models' included.
    public let entities: [Entity]
    /// The model the engine opens stores with.
    package let model: StrataCore.Model
    /// What is wrong with the models' declarations, if anything.
    let problem: StrataError?
    /// The backing classes the coordinator makes objects of, one per entity.
    let backingTypes: [ManagedObjectType]
    /// The model types, the related ones included.
    let modelTypes: [ModelType]

    /// A schema of `types` and every model they relate to.
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    /// A schema of `types` and every model they relate to.
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        var all: [any PersistentModel.Type] = []
        var seen: Set<ObjectIdentifier> = []
        var pending = types
        while let type = pending.first {
            pending.removeFirst()
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            all.append(type)
            for property in type.schemaMetadata {
                if let destination = PropertyKind(of: Swift.type(of: property.keypath).valueType).destination {
                    pending.append(destination)
                }
            }
        }
        let layouts = all.map { $0._$layout }
        self.version = version
        entities = layouts.map { layout in
            Entity(
                name: layout.entity.name, attributeNames: layout.entity.attributes.map(\.name),
                relationshipNames: layout.entity.relationships.map(\.name))
        }
        backingTypes = all.map { ManagedObjectType($0.backingType) }
        modelTypes = all.map { ModelType(type: $0) }
        var problem = layouts.lazy.compactMap(\.problem).first
        var model: StrataCore.Model
        do {
            model = try StrataCore.Model(versionIdentifier: version.description, entities: layouts.map(\.entity))
        } catch {
            problem = problem ?? (error as? StrataError) ?? StrataError(.invalidModel, "\(error)")
            model = Self.emptyModel
        }
        self.model = model
        self.problem = problem
    }

    /// The entity named `name`.
    public var entitiesByName: [String: Entity] {
        Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private static let emptyModel: StrataCore.Model = {
        do { return try StrataCore.Model(entities: []) } catch { preconditionFailure("an empty model is valid") }
    }()
}

/// A backing class, kept as a `Sendable` value.
struct ManagedObjectType: @unchecked Sendable {
    let type: ManagedObject.Type
    init(_ type: ManagedObject.Type) { self.type = type }
}
