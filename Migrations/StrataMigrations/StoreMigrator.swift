import Logging
import StrataCore

/// The built-in migrator: plans with ``MigrationPlan/make(versions:storeMetadata:target:stages:url:)``
/// and executes each step natively when the backend adopts ``NativeMigrating`` (SQLite, LMDB),
/// otherwise with the ``StreamingMigrationExecutor``.
///
/// ```swift
/// let migrator = try StoreMigrator(versions: VersionedModel(directory: modelURL))
/// if try migrator.needsMigration(storeAt: url) {
///     print(try migrator.plan(forStoreAt: url))          // dry run
///     try migrator.migrate(storeAt: url) { print($0) }   // progress
/// }
/// ```
///
/// The container calls it through ``StoreMigrating``.
public struct StoreMigrator: StoreMigrating {
    /// Every version of the model.
    public let versions: VersionedModel
    /// The version stores are migrated to.
    public let currentModel: Model
    /// Custom stages, one per pair of consecutive versions at most.
    public var stages: [MigrationStage]
    /// Where backends are found by scheme.
    public let registry: StoreRegistry
    /// Objects per batch in streaming executions and stages.
    public var batchSize: Int
    /// Whether to use a backend's native execution when it offers one (`false` forces streaming,
    /// for tests and comparisons).
    public var allowsNativeExecution: Bool

    /// Creates a migrator to `target` (the current version when `nil`).
    ///
    /// - Throws: ``StrataError/Code/invalidRequest`` for an unknown target version.
    public init(
        versions: VersionedModel, target: String? = nil, stages: [MigrationStage] = [],
        registry: StoreRegistry = .shared, batchSize: Int = 1_000, allowsNativeExecution: Bool = true
    ) throws {
        self.versions = versions
        if let target {
            guard let model = versions.version(named: target) else {
                throw StrataError(
                    .invalidRequest,
                    "model '\(versions.name)' has no version '\(target)' (it has: \(versions.versions.map(\.versionIdentifier).joined(separator: ", ")))",
                    location: ["version": target, "model": versions.name])
            }
            currentModel = model
        } else {
            currentModel = versions.current
        }
        self.stages = stages
        self.registry = registry
        self.batchSize = batchSize
        self.allowsNativeExecution = allowsNativeExecution
    }

    private func storeMetadata(at url: StoreURL) throws -> (any StoreBackend, StoreMetadata) {
        let backend = try registry.backend(for: url.scheme)
        guard let metadata = try backend.metadata(at: url) else {
            throw StrataError(.storeNotFound, "there is no store at \(url)", location: ["url": url.description])
        }
        return (backend, metadata)
    }

    /// The plan for the store at `url`, computed without changing it.
    public func plan(forStoreAt url: StoreURL) throws -> MigrationPlan {
        let (_, metadata) = try storeMetadata(at: url)
        return try MigrationPlan.make(
            versions: versions, storeMetadata: metadata, target: currentModel.versionIdentifier, stages: stages,
            url: url)
    }

    /// Whether the store at `url` needs migrating (or a custom stage's `didMigrate` is still to run).
    public func needsMigration(storeAt url: StoreURL) throws -> Bool {
        let (_, metadata) = try storeMetadata(at: url)
        if metadata.userInfo[pendingDidMigrateKey] != nil { return true }
        return try !MigrationPlan.make(
            versions: versions, storeMetadata: metadata, target: currentModel.versionIdentifier, stages: stages,
            url: url
        ).isEmpty
    }

    /// ``migrate(storeAt:options:progress:isCancelled:)`` for the container.
    public func migrateStore(
        at url: StoreURL, options: StoreOptions, progress: @escaping @Sendable (StoreProgress) -> Void,
        isCancelled: @escaping @Sendable () -> Bool
    ) throws {
        try migrate(storeAt: url, options: options, progress: progress, isCancelled: isCancelled)
    }

    /// Migrates the store at `url` to ``currentModel``, step by step, and returns the plan it ran.
    ///
    /// Each step is atomic: after an error, a cancellation or a crash, the store is at the
    /// version of the last completed step, and a new call continues from there.
    ///
    /// The store is locked exclusively for the whole migration: it waits for every other process
    /// (and every other open in this one) to close the store, and fails with
    /// ``StrataError/Code/storeBusy``, changing nothing, when one keeps it open.
    @discardableResult
    public func migrate(
        storeAt url: StoreURL, options: StoreOptions = StoreOptions(), progress: (StoreProgress) -> Void = { _ in },
        isCancelled: () -> Bool = { false }
    ) throws -> MigrationPlan {
        // No other process may read or write the store while its schema changes: one that kept
        // saving rows of the old shape would corrupt it.
        // A missing or damaged store is refused before a lock file is created beside it.
        _ = try storeMetadata(at: url)
        let lock = try registry.backend(for: url.scheme).lockForMigration(of: url)
        defer { lock?.release() }
        var (backend, current) = try storeMetadata(at: url)
        if let pending = current.userInfo[pendingDidMigrateKey] {
            try runPendingDidMigrate(pending, at: url, backend: backend, metadata: current, options: options)
            current = try storeMetadata(at: url).1
        }
        let plan = try MigrationPlan.make(
            versions: versions, storeMetadata: current, target: currentModel.versionIdentifier, stages: stages, url: url
        )
        for step in plan.steps {
            if isCancelled() {
                throw StrataError(
                    .cancelled,
                    "the migration of \(url) was cancelled before \(step.name); the store is at version \(step.source.versionIdentifier)",
                    location: ["url": url.description])
            }
            try run(step, at: url, backend: backend, options: options, progress: progress, isCancelled: isCancelled)
        }
        return plan
    }

    private func run(
        _ step: MigrationStep, at url: StoreURL, backend: any StoreBackend, options: StoreOptions,
        progress: (StoreProgress) -> Void, isCancelled: () -> Bool
    ) throws {
        let start = ContinuousClock.now
        var native = false
        if let will = step.stage?.willMigrate {
            progress(StoreProgress(phase: "stage \(step.name): willMigrate", completed: 0, total: 1))
            try withStore(at: url, model: step.source, backend: backend, options: options, will)
            progress(StoreProgress(phase: "stage \(step.name): willMigrate", completed: 1, total: 1))
        }
        var metadataChanges: [String: String?] = [:]
        if step.stage?.didMigrate != nil {
            metadataChanges[pendingDidMigrateKey] =
                "\(step.source.versionIdentifier)->\(step.destination.versionIdentifier)"
        }
        if allowsNativeExecution, let nativeBackend = backend as? any NativeMigrating,
            nativeBackend.canMigrateNatively(step)
        {
            native = true
            try nativeBackend.migrateNatively(
                step, at: url, options: options, metadataChanges: metadataChanges, progress: progress,
                isCancelled: isCancelled)
        } else {
            try StreamingMigrationExecutor(batchSize: batchSize).execute(
                step, at: url, backend: backend, options: options, metadataChanges: metadataChanges, progress: progress,
                isCancelled: isCancelled)
        }
        if let did = step.stage?.didMigrate {
            progress(StoreProgress(phase: "stage \(step.name): didMigrate", completed: 0, total: 1))
            try withStore(at: url, model: step.destination, backend: backend, options: options) { context in
                try did(context)
                try context.store.save(SaveRequest(metadataChanges: [pendingDidMigrateKey: nil]))
            }
            progress(StoreProgress(phase: "stage \(step.name): didMigrate", completed: 1, total: 1))
        }
        logStep(step, at: url, backend: backend, options: options, native: native, since: start)
    }

    /// Logs a finished step at `debug` (`strata.migration`): the versions, the objects of each
    /// entity after it (counted only when the log wants them), how it ran, and its time.
    private func logStep(
        _ step: MigrationStep, at url: StoreURL, backend: any StoreBackend, options: StoreOptions, native: Bool,
        since start: ContinuousClock.Instant
    ) {
        let logger = StrataLog.logger("migration")
        guard logger.logLevel <= .debug else { return }
        let milliseconds = StoreOperationLog.milliseconds(ContinuousClock.now - start)
        var counts: [String] = []
        try? withStore(at: url, model: step.destination, backend: backend, options: options) { context in
            for entity in step.destination.entities {
                let count = try context.store.fetch(FetchRequest(entityName: entity.name, resultType: .count)).count()
                counts.append("\(entity.name)=\(count)")
            }
        }
        let shown = url.loggedDescription
        logger.debug(
            "migrated \(shown) from \(step.source.versionIdentifier) to \(step.destination.versionIdentifier)",
            metadata: [
                "url": .string(shown), "from": .string(step.source.versionIdentifier),
                "to": .string(step.destination.versionIdentifier), "objects": .string(counts.joined(separator: ",")),
                "execution": .string(native ? "native" : "streaming"), "ms": .string(milliseconds),
            ])
    }

    private func runPendingDidMigrate(
        _ pending: String, at url: StoreURL, backend: any StoreBackend, metadata: StoreMetadata, options: StoreOptions
    ) throws {
        guard let model = versions.version(withHash: metadata.modelVersionHash) else { return }
        let stage = stages.first { "\($0.from)->\($0.to)" == pending && $0.to == model.versionIdentifier }
        try withStore(at: url, model: model, backend: backend, options: options) { context in
            try stage?.didMigrate?(context)
            try context.store.save(SaveRequest(metadataChanges: [pendingDidMigrateKey: nil]))
        }
    }

    private func withStore(
        at url: StoreURL, model: Model, backend: any StoreBackend, options: StoreOptions,
        _ body: (MigrationContext) throws -> Void
    ) throws {
        var openOptions = options
        openOptions.createsIfMissing = false
        openOptions.isReadOnly = false
        let store = try backend.open(url, model: model, options: openOptions)
        defer { try? store.close() }
        try body(MigrationContext(store: store, batchSize: batchSize))
    }
}
