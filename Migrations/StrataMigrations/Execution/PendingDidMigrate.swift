import StrataCore

/// The metadata key a step with a `MigrationStage.didMigrate` sets in the same transaction as
/// its structural change (value `"v2->v3"`), and removes once the closure has run; a migration
/// that finds it runs the closure again.
public let pendingDidMigrateKey = "strata.migration.pendingDidMigrate"
