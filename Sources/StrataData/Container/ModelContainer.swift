import Foundation
import Strata
import StrataCore
import StrataEngine
import StrataMigrations

/// The stores of a schema's models and the contexts that work on them: SwiftData's
/// `ModelContainer`, on Strata's coordinator and any built-in backend.
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: storeURL))
/// let context = ModelContext(container)
/// ```
///
/// Each configuration opens one store (its URL picks the backend; see ``ModelConfiguration``).
/// With several configurations, each names the models it stores with its `schema`.
public final class ModelContainer: Sendable {
    /// The models the container stores.
    public let schema: Schema
    /// The stores' configurations.
    public let configurations: [ModelConfiguration]
    /// The engine's coordinator of every context of the container.
    package let coordinator: StoreCoordinator
    /// The model types by the class of their objects (`BackingData<Model>`): what an object's
    /// model is made by, found without hashing a name.
    let typesByBackingClass: [ObjectIdentifier: ModelType]
    /// The stored property names of every model by key path, for predicates and sorts.
    let keyPaths: ModelKeyPaths
    /// The translations of the models' predicates, kept per predicate shape (for tests).
    package var predicateTranslations: PredicateTranslationCache { keyPaths.predicates }
    private let main = MainContextHolder()

    /// The plan that brings stores written with older versions of the models up to date, if
    /// the container was given one.
    public let migrationPlan: (any SchemaMigrationPlan.Type)?

    /// A container of `types` (and the models they relate to).
    ///
    /// - Parameter migrationPlan: the versions of the models and the stages between them: a
    ///   store written with an older version is migrated, a stage at a time, before it opens
    ///   (see ``SchemaMigrationPlan``).
    /// - Throws: ``StrataError``: an invalid model (a property of a type a model cannot store, a
    ///   relationship with no inverse), a configuration whose URL picks no backend, a store
    ///   that cannot be opened or was written with another model, a migration plan that cannot
    ///   be followed (``StrataError/Code/invalidMigrationPlan``) or a migration that failed.
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container of `schema`'s models.
    public convenience init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: ModelConfiguration...
    ) throws {
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container of `schema`'s models, stored as `configurations` say (the default store
    /// when empty).
    ///
    /// With a `migrationPlan`, the plan is checked first, then each store written with an older
    /// version of the plan is migrated to the version of `schema`'s models, through the engine's
    /// staged migration: each step all or nothing, so an error leaves the store at a whole
    /// version. A store at the current version opens untouched.
    public convenience init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [ModelConfiguration]
    ) throws {
        if let problem = schema.problem { throw problem }
        let plan = try migrationPlan.map { try ResolvedMigrationPlan($0, for: schema) }
        let schema = plan?.target ?? schema
        let configurations = configurations.isEmpty ? [ModelConfiguration()] : configurations
        var model = schema.model
        if configurations.count > 1 {
            var parts: [String: [String]] = [:]
            for configuration in configurations {
                guard let part = configuration.schema else {
                    throw StrataError(
                        .invalidModel,
                        "the configuration '\(configuration.name)' names no schema; with several configurations each says which models it stores",
                        location: ["configuration": configuration.name])
                }
                parts[configuration.name] = part.entities.map(\.name)
            }
            model = try StrataCore.Model(
                versionIdentifier: model.versionIdentifier, entities: model.entities, configurations: parts)
        }
        let coordinator = StoreCoordinator(model: model)
        try coordinator.registerClasses(schema.backingTypes.map(\.type))
        for configuration in configurations {
            let url = try configuration.storeURL
            if url.scheme != "memory" {
                let directory = URL(fileURLWithPath: url.location).deletingLastPathComponent()
                try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            }
            try plan?.migrateStore(at: url, configuration: configuration, registry: BuiltInBackends.registry)
            let store = try BuiltInBackends.registry.open(
                url, model: model, options: StoreOptions(isReadOnly: !configuration.allowsSave))
            try coordinator.addStore(
                store,
                configuration: configurations.count > 1 ? configuration.name : StrataCore.Model.defaultConfiguration)
        }
        self.init(
            schema: schema, configurations: configurations, coordinator: coordinator, migrationPlan: migrationPlan)
    }

    /// A container around a coordinator whose stores are open already.
    init(
        schema: Schema, configurations: [ModelConfiguration], coordinator: StoreCoordinator,
        migrationPlan: (any SchemaMigrationPlan.Type)?
    ) {
        self.schema = schema
        self.configurations = configurations
        self.coordinator = coordinator
        self.migrationPlan = migrationPlan
        keyPaths = ModelKeyPaths(schema.modelTypes.map(\.type))
        typesByBackingClass = Dictionary(
            schema.modelTypes.map { (ObjectIdentifier($0.type.backingType), $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The main-queue context: it saves by itself after changes (``ModelContext/autosaveEnabled``).
    @MainActor public var mainContext: ModelContext {
        if let context = main.context { return context }
        let context = ModelContext(self, concurrencyType: .mainQueue)
        context.autosaveEnabled = true
        main.context = context
        return context
    }

    /// Deletes every model of every store.
    public func deleteAllData() throws {
        let context = ObjectContext(coordinator: coordinator)
        for entity in coordinator.model.entities {
            for object in try context.fetch(FetchRequest(entityName: entity.name)) { context.delete(object) }
        }
        try context.save()
    }
}

/// Holds the main context, created on first use on the main actor.
@MainActor
private final class MainContextHolder: Sendable {
    var context: ModelContext?
    nonisolated init() {}
}

/// A model type, kept as a `Sendable` value.
struct ModelType: @unchecked Sendable {
    let type: any PersistentModel.Type
}
