/// A custom stage between two consecutive model versions, for what inference cannot do alone
/// (as in Core Data's staged migration).
///
/// - ``willMigrate`` runs on the store at the source version, before the structural change:
///   fill values before an attribute becomes required, reduce a to-many to one target before it
///   becomes a to-one.
/// - ``didMigrate`` runs on the store at the destination version, after it: compute values of
///   new attributes from others.
///
/// A stage also acknowledges the changes inference refuses because they could lose data or leave
/// a required value empty: an optional attribute or to-one becoming required with no default, a
/// to-many becoming to-one, an ordered relationship becoming unordered. The executor checks the
/// result of ``willMigrate`` (no nulls left, at most one target) before it changes anything.
///
/// Each closure's saves commit on their own; the structural change is one transaction. A
/// ``didMigrate`` that has not finished is recorded in the store's metadata in the same
/// transaction as the structural change and runs again at the next migration, so write both
/// closures so that running them twice does no harm.
///
/// ```swift
/// let stage = MigrationStage(from: "v2", to: "v3", willMigrate: { context in
///     try context.updateEach("Employee", where: try ObjectPredicate(format: "height == nil")) { employee in
///         employee["height"] = .double(1.7)
///     }
/// })
/// ```
public struct MigrationStage: Sendable {
    /// The source version's identifier.
    public var from: String
    /// The destination version's identifier (the next version after ``from``).
    public var to: String
    /// Runs on the store at the source version before the structural change.
    public var willMigrate: (@Sendable (MigrationContext) throws -> Void)?
    /// Runs on the store at the destination version after the structural change.
    public var didMigrate: (@Sendable (MigrationContext) throws -> Void)?

    /// Creates a stage from `from` to `to`.
    public init(
        from: String,
        to: String,
        willMigrate: (@Sendable (MigrationContext) throws -> Void)? = nil,
        didMigrate: (@Sendable (MigrationContext) throws -> Void)? = nil
    ) {
        self.from = from
        self.to = to
        self.willMigrate = willMigrate
        self.didMigrate = didMigrate
    }
}
