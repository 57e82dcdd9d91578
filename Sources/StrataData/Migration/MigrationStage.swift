/// How a store moves from one version of the models to the next: SwiftData's `MigrationStage`.
///
/// ```swift
/// static let migrateV1toV2 = MigrationStage.lightweight(fromVersion: TripsSchemaV1.self, toVersion: TripsSchemaV2.self)
///
/// static let migrateV2toV3 = MigrationStage.custom(
///     fromVersion: TripsSchemaV2.self, toVersion: TripsSchemaV3.self,
///     willMigrate: { context in                     // the store at version 2
///         let trips = try context.fetch(FetchDescriptor<TripsSchemaV2.Trip>())
///         var seen = Set<String>()
///         for trip in trips where !seen.insert(trip.name).inserted { context.delete(trip) }
///         try context.save()
///     },
///     didMigrate: { context in ... })               // the store at version 3
/// ```
///
/// A lightweight stage changes what Strata can infer from the two versions (added properties
/// optional or with an initial value, removed ones, renames declared with `originalName`,
/// new unique constraints the data satisfies). A custom stage runs `willMigrate` on the store
/// at the older version before the change and `didMigrate` on the store at the newer version
/// after it, each with a ``ModelContext`` of that version's models; what a closure leaves
/// unsaved is saved when it returns. A custom stage also allows the changes inference alone
/// refuses because they need the data prepared (an optional attribute becoming required, a
/// to-many becoming to-one), which `willMigrate` must prepare.
///
/// Each stage's structural change is one transaction: a crash or an error leaves the store
/// at the older version or the newer one, whole, and opening it again continues from there.
/// A `didMigrate` interrupted by a crash runs again at the next open, and a `willMigrate` runs
/// again when its change did not complete: write both so that running them twice does no harm.
public enum MigrationStage: Sendable {
    /// A stage Strata infers from the two versions.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// A stage with code before and after the change.
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: (@Sendable (ModelContext) throws -> Void)?, didMigrate: (@Sendable (ModelContext) throws -> Void)?)

    /// The version the stage starts from.
    var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): return from
        }
    }

    /// The version the stage ends at.
    var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): return to
        }
    }
}
