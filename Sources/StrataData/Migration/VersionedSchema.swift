/// One version of an application's models: SwiftData's `VersionedSchema`.
///
/// Declare each version as an enum that lists its models, nested inside it, and point the
/// current names at the newest version with type aliases:
///
/// ```swift
/// enum TripsSchemaV1: VersionedSchema {
///     static let versionIdentifier = Schema.Version(1, 0, 0)
///     static var models: [any PersistentModel.Type] { [Trip.self] }
///
///     @Model final class Trip {
///         var name: String
///         init(name: String) { self.name = name }
///     }
/// }
///
/// typealias Trip = TripsSchemaV2.Trip
/// ```
///
/// A model's entity is named after the class alone (`Trip`), not the enum around it, so the
/// `Trip` of every version stores into the same entity. A ``SchemaMigrationPlan`` lists the
/// versions and how a store moves from one to the next.
public protocol VersionedSchema: SendableMetatype {
    /// The version: `Schema.Version(2, 0, 0)`. Versions order the schemas of a plan.
    static var versionIdentifier: Schema.Version { get }
    /// The models of this version; the models they relate to join by themselves.
    static var models: [any PersistentModel.Type] { get }
}

extension Schema {
    /// The schema of one version of the models, at its ``VersionedSchema/versionIdentifier``.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }
}
