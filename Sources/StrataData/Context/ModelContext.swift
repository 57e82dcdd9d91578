import Foundation
import StrataCore
import StrataEngine

/// Where models are inserted, changed, deleted, fetched and saved: SwiftData's
/// `ModelContext`, on an engine context.
///
/// ```swift
/// let context = ModelContext(container)
/// context.insert(Trip(name: "Oslo"))
/// try context.save()
/// ```
///
/// A context holds one model instance per stored object for as long as somebody uses it, and
/// is used from one thread (or actor) at a time; debug builds report a use from another thread.
/// The container's ``ModelContainer/mainContext`` belongs to the main actor.
public final class ModelContext {
    /// The container the context works on.
    public let container: ModelContainer
    /// The engine's context behind this one.
    package let objectContext: ObjectContext
    /// Whether the context saves by itself after an insert or delete: at the next turn of the
    /// main queue, for the main context (the only one that saves by itself; `false` for the
    /// others).
    public var autosaveEnabled = false
    private var autosaveScheduled = false
    /// The requests of the fetch descriptors the context fetched, kept per descriptor shape.
    @usableFromInline let fetchPlans = FetchPlans()

    /// A new context on `container`'s stores.
    public convenience init(_ container: ModelContainer) {
        self.init(container, concurrencyType: .privateQueue)
    }

    init(_ container: ModelContainer, concurrencyType: ConcurrencyType) {
        self.container = container
        objectContext = ObjectContext(coordinator: container.coordinator, concurrencyType: concurrencyType)
        Self.owners.withLock { $0[ObjectIdentifier(objectContext)] = WeakModelContext(context: self) }
    }

    deinit {
        let key = ObjectIdentifier(objectContext)
        Self.owners.withLock { _ = $0.removeValue(forKey: key) }
    }

    /// The model contexts by engine context.
    private static let owners = Locked<[ObjectIdentifier: WeakModelContext]>([:])

    /// The model context of an engine context.
    static func owner(of context: ObjectContext) -> ModelContext? {
        owners.withLock { $0[ObjectIdentifier(context)]?.context }
    }

    // MARK: Changes

    /// Inserts `model`, and the models it relates to that no context holds yet. Inserting a
    /// model the context holds already does nothing.
    ///
    /// A model of another context, or of a type outside the container's schema, is a
    /// programmer's mistake and stops the program with a message naming it.
    public func insert<T: PersistentModel>(_ model: T) {
        let backing = model.persistentBackingData
        guard backing.isUnattached else {
            precondition(
                backing.context === objectContext,
                "\(backing.objectID) belongs to another context; fetch it in this one with model(for:)")
            return
        }
        do { try objectContext.insertDetached(backing) } catch { preconditionFailure("\(error)") }
        backing.model = model
        let pending = backing.pendingTargets
        backing.pendingTargets = [:]
        for (slot, related) in pending.sorted(by: { $0.key < $1.key }) {
            setRelated(related, at: slot, of: backing)
        }
        scheduleAutosave()
    }

    private func setRelated<T: PersistentModel>(
        _ related: [any PersistentModel], at slot: Int, of backing: BackingData<T>
    ) {
        for model in related { insertModel(model) }
        let objects = related.map { $0.managedObject }
        let relationship = backing.entity.relationships[slot]
        do {
            if relationship.isToMany {
                try backing.setObjects(objects, for: relationship.name)
            } else {
                try backing.setObject(objects.first, for: relationship.name)
            }
        } catch {
            preconditionFailure("\(error)")
        }
    }

    private func insertModel(_ model: any PersistentModel) {
        func open<M: PersistentModel>(_ model: M) { insert(model) }
        open(model)
    }

    /// Deletes `model` at the next save (a model inserted and not saved simply goes). Its
    /// relationships' delete rules apply then.
    public func delete<T: PersistentModel>(_ model: T) {
        let backing = model.persistentBackingData
        guard !backing.isUnattached else { return }
        objectContext.delete(backing) // which stops a model of another context
        scheduleAutosave()
    }

    /// Whether the context has unsaved inserts, changes or deletes.
    public var hasChanges: Bool { objectContext.hasChanges }

    /// Saves every change in one step: nothing is saved when anything fails.
    ///
    /// An inserted model whose unique values a stored model holds updates that model instead
    /// (SwiftData's upsert). The save finds such collisions as any save does (the store rejects
    /// them, or the context's check asks it): it then merges the colliding models into the stored
    /// ones and saves again, so a save without collisions asks the store nothing more.
    ///
    /// - Throws: ``StrataError``: ``StrataError/Code/readOnly`` when a configuration does not
    ///   allow saving; validation, unique-constraint, delete-rule and store errors as the engine
    ///   reports them, naming the model and property.
    public func save() throws {
        if let configuration = container.configurations.first(where: { !$0.allowsSave }), hasChanges {
            throw StrataError(
                .readOnly, "the configuration '\(configuration.name)' does not allow saving (allowsSave is false)",
                location: ["configuration": configuration.name])
        }
        do {
            try objectContext.save()
        } catch let failure as StrataError where failure.code == .validationFailed {
            // The failed save left the context as it was. Without a stored model to merge into,
            // the failure is the caller's to see.
            guard try mergeUniqueInserts() else { throw failure }
            try objectContext.save()
        }
    }

    /// Discards every unsaved change: inserted models leave the context, changed ones get their
    /// saved values back, deleted ones come back.
    public func rollback() {
        objectContext.rollback()
    }

    /// Runs `block`, then saves.
    public func transaction(block: () throws -> Void) throws {
        try block()
        try save()
    }

    /// Accepted for source compatibility: changes are always processed at once.
    public func processPendingChanges() {}

    /// Saves at the next turn of the main queue, when autosave is on.
    func scheduleAutosave() {
        guard autosaveEnabled, !autosaveScheduled, objectContext.concurrencyType == .mainQueue else { return }
        autosaveScheduled = true
        nonisolated(unsafe) let context = self
        DispatchQueue.main.async {
            context.autosaveScheduled = false
            if context.autosaveEnabled, context.hasChanges { try? context.save() }
        }
    }

    // MARK: Registered models

    /// The model of `persistentModelID` in this context: the registered one, or a new one that
    /// loads its values on first use.
    public func model(for persistentModelID: PersistentIdentifier) -> any PersistentModel {
        anyModel(for: objectContext.object(with: persistentModelID.objectID))
    }

    /// The model of `persistentModelID` if this context holds it already (never fetches).
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        guard let object = objectContext.registeredObject(for: persistentModelID.objectID),
            object is BackingData<T>
        else { return nil }
        return StrataData.model(for: object, as: T.self)
    }

    /// The models inserted and not saved yet.
    public var insertedModelsArray: [any PersistentModel] { objectContext.insertedObjects.map(anyModel(for:)) }
    /// The models changed and not saved yet.
    public var changedModelsArray: [any PersistentModel] { objectContext.updatedObjects.map(anyModel(for:)) }
    /// The models deleted and not saved yet.
    public var deletedModelsArray: [any PersistentModel] { objectContext.deletedObjects.map(anyModel(for:)) }

    /// The model of an engine object of this context, whatever its type.
    func anyModel(for object: ManagedObject) -> any PersistentModel {
        guard let type = container.typesByBackingClass[ObjectIdentifier(Swift.type(of: object))]?.type else {
            preconditionFailure("entity '\(object.entity.name)' has no model type in the container's schema")
        }
        func make<M: PersistentModel>(_: M.Type) -> any PersistentModel { StrataData.model(for: object, as: M.self) }
        return make(type)
    }
}

extension PersistentModel {
    /// The engine object behind the model.
    var managedObject: ManagedObject { persistentBackingData }
}

/// A model context, held weakly.
private struct WeakModelContext: @unchecked Sendable {
    weak var context: ModelContext?
}
