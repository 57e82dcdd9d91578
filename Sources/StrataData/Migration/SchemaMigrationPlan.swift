/// The versions of an application's models and how a store moves from each to the next:
/// SwiftData's `SchemaMigrationPlan`.
///
/// ```swift
/// enum TripsMigrationPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [TripsSchemaV1.self, TripsSchemaV2.self] }
///     static var stages: [MigrationStage] { [migrateV1toV2] }
///
///     static let migrateV1toV2 = MigrationStage.custom(
///         fromVersion: TripsSchemaV1.self, toVersion: TripsSchemaV2.self,
///         willMigrate: { context in ... }, didMigrate: nil)
/// }
///
/// let container = try ModelContainer(
///     for: Trip.self, migrationPlan: TripsMigrationPlan.self, configurations: ModelConfiguration(url: url))
/// ```
///
/// ``ModelContainer`` checks the plan before it touches a store: the schemas' versions and
/// models differ from each other, every stage joins a version to the next one, and a stage
/// leads from each version to the next, up to the container's. It then brings each store
/// written with an older version up to the container's, a stage at a time.
public protocol SchemaMigrationPlan: SendableMetatype {
    /// Every version, oldest first (they are ordered by ``VersionedSchema/versionIdentifier``).
    static var schemas: [any VersionedSchema.Type] { get }
    /// One stage per pair of consecutive versions, oldest first.
    static var stages: [MigrationStage] { get }
}
