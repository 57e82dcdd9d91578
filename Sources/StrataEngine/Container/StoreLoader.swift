import StrataCore

/// Loads one store of a container, on the loading thread: finds the backend, reads the store's
/// metadata, migrates it when allowed, opens it and reads every entity once.
///
/// It never deletes, empties or recreates a store, and it checks for cancellation between
/// phases (and the migrator between and inside its steps, each of which is all or nothing), so
/// a cancelled load leaves the store at a whole model version: the one it had, or one of the
/// migration's steps, which its error names (`location["modelVersion"]`).
struct StoreLoader {
    let description: StoreDescription
    let index: Int
    let count: Int
    /// The model the store is opened with (the current version).
    let model: Model
    /// Every version the application knows, when the container was given them.
    let versions: VersionedModel?
    let migrator: (any StoreMigrating)?
    let registry: StoreRegistry
    let report: @Sendable (LoadProgress) -> Void
    let isCancelled: @Sendable () -> Bool

    private var url: StoreURL { description.url }

    private func progress(_ phase: LoadProgress.Phase, _ completed: Int, _ total: Int, _ detail: String = "") {
        report(
            LoadProgress(
                store: url, storeIndex: index, storeCount: count, phase: phase, detail: detail, completed: completed,
                total: total))
    }

    /// Throws ``cancellation(storeVersion:underlying:)`` when the load was cancelled;
    /// `storeVersion` is the model version the store is at, `nil` while the load has changed
    /// nothing (the store not read yet, or none there).
    private func checkCancelled(storeVersion: @autoclosure () -> String?) throws {
        guard isCancelled() else { return }
        throw cancellation(storeVersion: storeVersion())
    }

    /// The error of a cancelled load, saying where it leaves the store: untouched (`nil`), or
    /// at the model version `storeVersion`, a whole one.
    private func cancellation(storeVersion: String?, underlying: String? = nil) -> StrataError {
        var location = ["url": url.description]
        guard let storeVersion else {
            return StrataError(
                .cancelled,
                "loading the store at \(url) was cancelled before it changed anything; the store was not touched",
                location: location, underlying: underlying)
        }
        location["modelVersion"] = storeVersion
        return StrataError(
            .cancelled,
            "loading the store at \(url) was cancelled; the store is at model version '\(storeVersion)', a whole version, and loading again continues from there",
            location: location, underlying: underlying)
    }

    /// The identifier of the model version `metadata` names.
    private func versionIdentifier(of metadata: StoreMetadata) -> String {
        versions?.version(withHash: metadata.modelVersionHash)?.versionIdentifier ?? metadata.modelVersionIdentifier
    }

    /// Loads the store and returns it open.
    func load() throws -> any PersistentStore {
        try checkCancelled(storeVersion: nil)
        let backend = try registry.backend(for: url.scheme)
        progress(.checking, 0, 1)
        let metadata = try backend.metadata(at: url)
        progress(.checking, 1, 1)
        if let metadata, !model.matchesVersionHash(metadata.modelVersionHash) {
            try checkCancelled(storeVersion: versionIdentifier(of: metadata))
            try migrate(from: metadata, backend: backend)
            guard let after = try backend.metadata(at: url), model.matchesVersionHash(after.modelVersionHash) else {
                throw StrataError(
                    .internalInconsistency,
                    "the migrator finished without error, but the store at \(url) is still not at model version '\(model.versionIdentifier)'",
                    location: ["url": url.description])
            }
        }
        // From here the store is at the current version (or, not created yet, made at it).
        try checkCancelled(storeVersion: metadata == nil ? nil : model.versionIdentifier)
        progress(.opening, 0, 1)
        let store = try backend.open(url, model: model, options: description.storeOptions)
        progress(.opening, 1, 1)
        do {
            try verify(store)
            try checkCancelled(storeVersion: model.versionIdentifier)
        } catch {
            try? store.close()
            throw error
        }
        return store
    }

    /// Counts every entity of the description's configuration, so that a store whose tables
    /// cannot be read fails the load now rather than at the first fetch.
    private func verify(_ store: any PersistentStore) throws {
        let entities = model.entityNames(inConfiguration: description.configuration) ?? []
        for (done, entity) in entities.enumerated() {
            try checkCancelled(storeVersion: model.versionIdentifier)
            progress(.verifying, done, entities.count, entity)
            _ = try store.fetch(FetchRequest(entityName: entity, resultType: .count)).count()
        }
        progress(.verifying, entities.count, entities.count)
    }

    /// Brings the store written with another model version to the current one, or explains why
    /// it cannot.
    private func migrate(from metadata: StoreMetadata, backend: any StoreBackend) throws {
        let known = versions?.version(withHash: metadata.modelVersionHash)
        let written =
            known.map { "model version '\($0.versionIdentifier)'" }
            ?? "model version '\(metadata.modelVersionIdentifier)' (hash \(metadata.modelVersionHash))"
        var location = ["url": url.description, "storeHash": metadata.modelVersionHash, "modelHash": model.versionHash]
        func mismatch(_ why: String) -> StrataError {
            StrataError(
                .modelMismatch,
                "the store at \(url) was written with \(written), but the container's model is version '\(model.versionIdentifier)'; \(why)",
                location: location)
        }
        if let versions, known == nil {
            location["knownVersions"] = versions.versions.map(\.versionIdentifier).joined(separator: ", ")
            if migrator == nil {
                throw mismatch(
                    "that version is none of the versions the application knows (\(location["knownVersions"]!)), so it cannot be migrated"
                )
            }
        }
        guard description.migratesAutomatically else {
            throw mismatch("automatic migration is off for this store (migratesAutomatically)")
        }
        guard description.infersMappingAutomatically else {
            throw mismatch(
                "the migration needs an inferred mapping, and infersMappingAutomatically is off for this store")
        }
        guard !description.isReadOnly else { throw mismatch("the store is opened read-only, so it cannot be migrated") }
        guard let migrator else { throw mismatch("the container has no migrator (pass one to PersistentContainer)") }
        guard migrator.currentModel.versionHash == model.versionHash else {
            throw StrataError(
                .invalidModel,
                "the container's migrator migrates to model version '\(migrator.currentModel.versionIdentifier)', but the container's model is version '\(model.versionIdentifier)'",
                location: location)
        }
        let needed: Bool
        do {
            needed = try migrator.needsMigration(storeAt: url)
        } catch var refusal as StrataError where refusal.code == .modelMismatch {
            // The migrator's own words, with what the container knows about the store added.
            refusal.location.merge(location) { mine, _ in mine }
            throw refusal
        }
        guard needed else { throw mismatch("the migrator says the store needs no migration") }
        progress(
            .migrating, 0, 0,
            "from \(known?.versionIdentifier ?? metadata.modelVersionIdentifier) to \(model.versionIdentifier)")
        do {
            try migrator.migrateStore(
                at: url,
                options: description.storeOptions,
                progress: { step in progress(.migrating, step.completed, step.total, step.phase) },
                isCancelled: isCancelled
            )
        } catch let error as StrataError where error.code == .cancelled {
            // Each step is all or nothing: the store is at the version of the last one done.
            guard let after = (try? backend.metadata(at: url)).flatMap({ $0 }) else {
                throw StrataError(
                    .cancelled,
                    "loading the store at \(url) was cancelled during its migration; the store is at a whole model version (its metadata could not be read again to say which), and loading again continues from there",
                    location: ["url": url.description], underlying: error.message)
            }
            throw cancellation(storeVersion: versionIdentifier(of: after), underlying: error.message)
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(
                .internalInconsistency, "the migrator threw an error that is not a StrataError while migrating \(url)",
                location: ["url": url.description], underlying: "\(error)")
        }
    }
}
