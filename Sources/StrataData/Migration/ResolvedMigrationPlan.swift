import Foundation
import StrataCore
import StrataMigrations

/// A ``SchemaMigrationPlan`` checked and translated into the engine's terms: a
/// `VersionedModel` of the schemas' models (version identifiers `1.0.0`, `2.0.0`, ...), and an
/// engine stage for each custom stage, whose closures get a ``ModelContext``.
///
/// Everything is checked here, before any store is touched: a plan that cannot be followed
/// throws ``StrataError/Code/invalidMigrationPlan`` naming the versions.
struct ResolvedMigrationPlan {
    /// The plan's name (the type's).
    let name: String
    /// The schemas, ordered by version.
    let schemas: [Schema]
    /// The schema the container opens its stores with: the plan's schema of the container's models.
    let target: Schema
    /// The schemas' models, oldest first; the engine's migrator walks them.
    let versions: VersionedModel
    /// The engine stages of the custom stages.
    let stages: [StrataCore.MigrationStage]

    /// Checks `plan` against the container's `schema`.
    init(_ plan: any SchemaMigrationPlan.Type, for schema: Schema) throws {
        let planName = String(describing: plan)
        name = planName
        func invalid(_ message: String, _ location: [String: String] = [:]) -> StrataError {
            StrataError(
                .invalidMigrationPlan, "the migration plan \(planName) \(message)",
                location: location.merging(["migrationPlan": planName]) { mine, _ in mine })
        }
        let declared = plan.schemas
        guard !declared.isEmpty else { throw invalid("lists no schemas") }
        var entries: [(type: any VersionedSchema.Type, schema: Schema)] = []
        for type in declared {
            let schema = Schema(versionedSchema: type)
            if var problem = schema.problem {
                problem.location["version"] = schema.version.description
                throw problem
            }
            entries.append((type, schema))
        }
        entries.sort { $0.schema.version < $1.schema.version }
        for (earlier, later) in zip(entries, entries.dropFirst()) {
            let versions = "\(earlier.type) and \(later.type)"
            if earlier.schema.version == later.schema.version {
                throw invalid(
                    "lists two schemas at version \(later.schema.version) (\(versions)): give each its own version",
                    ["version": later.schema.version.description])
            }
        }
        for (i, a) in entries.enumerated() {
            for b in entries[(i + 1)...] where a.schema.model.versionHash == b.schema.model.versionHash {
                throw invalid(
                    "lists \(a.type) (\(a.schema.version)) and \(b.type) (\(b.schema.version)) with the same models, "
                        + "so a store could not tell them apart; change the models of the newer one or drop it",
                    ["version": b.schema.version.description])
            }
        }
        func position(of type: any VersionedSchema.Type, in stage: String) throws -> Int {
            guard let index = entries.firstIndex(where: { ObjectIdentifier($0.type) == ObjectIdentifier(type) }) else {
                throw invalid(
                    "has a stage \(stage) naming \(type) (version \(type.versionIdentifier)), which is not among its "
                        + "schemas (\(entries.map { "\($0.type)" }.joined(separator: ", ")))",
                    ["version": type.versionIdentifier.description, "stage": stage])
            }
            return index
        }
        var stageByStep: [Int: MigrationStage] = [:]
        for stage in plan.stages {
            let label = "\(stage.fromVersion) -> \(stage.toVersion)"
            let from = try position(of: stage.fromVersion, in: label)
            let to = try position(of: stage.toVersion, in: label)
            guard to == from + 1 else {
                throw invalid(
                    "has a stage \(label) from version \(entries[from].schema.version) to "
                        + "\(entries[to].schema.version), which are not consecutive versions of the plan; "
                        + "a stage goes from one version to the next",
                    ["version": entries[from].schema.version.description, "stage": label])
            }
            guard stageByStep.updateValue(stage, forKey: from) == nil else {
                throw invalid(
                    "has two stages from version \(entries[from].schema.version) to \(entries[to].schema.version)",
                    ["version": entries[from].schema.version.description, "stage": label])
            }
        }
        let containerTypes = Set(schema.modelTypes.map { ObjectIdentifier($0.type) })
        guard
            let targetIndex = entries.lastIndex(where: { entry in
                containerTypes.isSubset(of: entry.schema.modelTypes.map { ObjectIdentifier($0.type) })
            })
        else {
            throw invalid(
                "has no schema with the container's models (\(schema.entities.map(\.name).joined(separator: ", "))); "
                    + "list the VersionedSchema those models belong to among its schemas")
        }
        for step in 0..<targetIndex where stageByStep[step] == nil {
            let (from, to) = (entries[step], entries[step + 1])
            throw invalid(
                "has no stage from version \(from.schema.version) (\(from.type)) to \(to.schema.version) (\(to.type)), "
                    + "so its stages do not connect; add MigrationStage.lightweight(fromVersion: \(from.type).self, "
                    + "toVersion: \(to.type).self) or a custom stage",
                ["version": from.schema.version.description])
        }
        self.schemas = entries.map(\.schema)
        self.target = entries[targetIndex].schema
        self.versions = try VersionedModel(
            name: planName, versions: entries.map(\.schema.model),
            current: entries[targetIndex].schema.version.description)
        self.stages = stageByStep.sorted { $0.key < $1.key }.compactMap { step, stage in
            Self.engineStage(stage, from: entries[step].schema, to: entries[step + 1].schema)
        }
    }

    /// The engine stage of a custom stage (none for a lightweight one: the engine infers it).
    private static func engineStage(_ stage: MigrationStage, from: Schema, to: Schema) -> StrataCore.MigrationStage? {
        guard case .custom(_, _, let willMigrate, let didMigrate) = stage else { return nil }
        return StrataCore.MigrationStage(
            from: from.version.description, to: to.version.description,
            willMigrate: engineClosure(willMigrate, schema: from), didMigrate: engineClosure(didMigrate, schema: to))
    }

    /// A stage closure as the engine calls it: on the store open at `schema`'s version.
    private static func engineClosure(
        _ body: (@Sendable (ModelContext) throws -> Void)?, schema: Schema
    ) -> (@Sendable (MigrationContext) throws -> Void)? {
        guard let body else { return nil }
        return { migration in try ModelContainer.runStage(body, schema: schema, on: migration) }
    }

    /// Brings the store at `url` (of `configuration`) to the target version, when it was written
    /// with an older one: the engine's migrator, a stage at a time, each step all or nothing.
    /// A store at the target version (or none yet) is left alone.
    ///
    /// - Throws: ``StrataError/Code/modelMismatch`` for a store written with a version the plan
    ///   does not list, or newer than the container's, or in a read-only configuration; the
    ///   errors of the stages and of the steps. The store is left at a whole version.
    func migrateStore(at url: StoreURL, configuration: ModelConfiguration, registry: StoreRegistry) throws {
        let backend = try registry.backend(for: url.scheme)
        guard let metadata = try backend.metadata(at: url) else { return }
        let migrator = try StoreMigrator(
            versions: versions, target: target.version.description, stages: stages, registry: registry)
        let location = ["configuration": configuration.name, "url": url.description, "migrationPlan": name]
        do {
            if metadata.modelVersionHash == target.model.versionHash,
                !(try migrator.needsMigration(storeAt: url))
            {
                return
            }
            guard configuration.allowsSave else {
                throw StrataError(
                    .modelMismatch,
                    "the store at \(url) was written with model version '\(metadata.modelVersionIdentifier)', "
                        + "older than \(target.version), but the configuration '\(configuration.name)' does not allow "
                        + "saving (allowsSave is false), so it cannot be migrated; nothing was changed",
                    location: location.merging(["version": metadata.modelVersionIdentifier]) { mine, _ in mine })
            }
            try migrator.migrate(storeAt: url, options: StoreOptions())
        } catch var error as StrataError {
            error.location.merge(location) { theirs, _ in theirs }
            if error.code == .modelMismatch, error.location["version"] == nil {
                error.location["version"] = metadata.modelVersionIdentifier
            }
            throw error
        }
    }
}
