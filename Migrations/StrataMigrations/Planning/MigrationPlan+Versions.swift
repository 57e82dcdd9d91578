import StrataCore

extension MigrationPlan {
    /// The plan that would bring a store at version `from` of `versions` to version `to`, computed
    /// from the model alone (no store): what `strata model diff` prints. Its ``description`` and
    /// ``jsonData()`` are the same as those of the plan for a real store at `from`.
    ///
    /// ```swift
    /// let plan = try MigrationPlan.make(versions: company, from: "v1", to: "v3")
    /// print(plan)   // migrate from v1 to v3 in 2 steps ...
    /// ```
    ///
    /// - Throws: ``StrataError/Code/invalidRequest`` for a version `versions` does not have, or
    ///   `from` later than `to` (migrations only go forward);
    ///   ``StrataError/Code/migrationNotInferable`` for a step inference cannot map, as
    ///   ``make(versions:storeMetadata:target:stages:url:)`` does.
    public static func make(
        versions: VersionedModel, from: String, to: String, stages: [MigrationStage] = []
    ) throws -> MigrationPlan {
        let identifiers = versions.versions.map(\.versionIdentifier)
        func index(of identifier: String) throws -> Int {
            guard let index = identifiers.firstIndex(of: identifier) else {
                throw StrataError(
                    .invalidRequest,
                    "model '\(versions.name)' has no version '\(identifier)' (it has: \(identifiers.joined(separator: ", ")))",
                    location: ["version": identifier, "model": versions.name])
            }
            return index
        }
        let fromIndex = try index(of: from)
        let toIndex = try index(of: to)
        guard fromIndex <= toIndex else {
            throw StrataError(
                .invalidRequest,
                "version '\(from)' of model '\(versions.name)' comes after '\(to)' (\(identifiers.joined(separator: ", "))); migrations only go forward",
                location: ["from": from, "to": to, "model": versions.name])
        }
        let source = versions.versions[fromIndex]
        let metadata = StoreMetadata(
            storeIdentifier: "", storeType: "", modelVersionHash: source.versionHash,
            modelVersionIdentifier: source.versionIdentifier)
        // Versions earlier than `from` could share its hash; planning from `from` itself keeps
        // the steps the ones between the two versions named.
        let later = try VersionedModel(
            name: versions.name, versions: Array(versions.versions[fromIndex...toIndex]), current: to)
        return try make(versions: later, storeMetadata: metadata, target: to, stages: stages)
    }
}
