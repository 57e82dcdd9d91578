import StrataCore
import StrataEngine

extension ModelContainer {
    /// Runs a custom stage's closure on the store the engine's migrator opened at one version:
    /// a container of that version's `schema` around the open store, and a ``ModelContext`` on
    /// it. What the closure leaves unsaved is saved when it returns. The store stays open (the
    /// migrator closes it).
    static func runStage(
        _ body: @Sendable (ModelContext) throws -> Void, schema: Schema, on migration: MigrationContext
    ) throws {
        let coordinator = StoreCoordinator(model: migration.store.model)
        try coordinator.registerClasses(schema.backingTypes.map(\.type))
        try coordinator.addStore(migration.store)
        let container = ModelContainer(schema: schema, configurations: [], coordinator: coordinator, migrationPlan: nil)
        let context = ModelContext(container)
        try body(context)
        if context.hasChanges { try context.save() }
    }
}
