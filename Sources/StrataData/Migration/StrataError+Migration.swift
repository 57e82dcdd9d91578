import StrataCore

extension StrataError.Code {
    /// A ``SchemaMigrationPlan`` that cannot be followed: two schemas at one version or with the
    /// same models, a stage between versions that are not consecutive or not in the plan, no
    /// stage from a version to the next, or a container whose models are none of the plan's
    /// schemas. The message and `location` name the versions; no store was touched.
    public static let invalidMigrationPlan = StrataError.Code(rawValue: "invalidMigrationPlan")
}
