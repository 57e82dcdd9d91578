import StrataData

/// How a store of an older release becomes a store of this one: a lightweight stage from the
/// first schema to the second.
enum TripsMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsSchemaV1.self, TripsSchemaV2.self] }
    static var stages: [MigrationStage] { [migrateV1toV2] }

    static let migrateV1toV2 = MigrationStage.lightweight(
        fromVersion: TripsSchemaV1.self, toVersion: TripsSchemaV2.self)
}
