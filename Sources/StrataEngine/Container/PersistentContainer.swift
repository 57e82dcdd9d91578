import Dispatch
import Foundation
import StrataCore
import StrataMigrations

/// The whole stack in one object: the model, a coordinator, a main-queue view context, background
/// contexts, and stores chosen by configuration and loaded in the background. The persistent
/// container of Core Data.
///
/// ```swift
/// let container = PersistentContainer(name: "Company", model: model)   // sqlite:Company.sqlite,
/// try await container.loadPersistentStores()                           //   or $STRATA_STORE
/// try await container.performBackgroundTask { context in
///     try context.insert("Employee")["name"] = "Ada"
///     try context.save()
/// }
/// let count = try await container.viewContext.perform { try container.viewContext.count(FetchRequest(entityName: "Employee")) }
/// ```
///
/// **Stores.** Each ``StoreDescription`` names a store and the model configuration whose entities
/// it holds; the coordinator routes every entity to its store. The environment overrides the URLs
/// (``StoreDescription/applyingEnvironment(_:to:)``). A container is never wrong about its setup
/// silently: a configuration or environment problem fails the load with a typed error.
///
/// **Loading** (``loadPersistentStores()``) runs on the container's own queue: metadata checks,
/// migration and opening never run on the caller's thread. Progress comes as a Foundation
/// `Progress` and as an `AsyncSequence` (``loadProgressUpdates()``); a load can be cancelled
/// and then leaves every store at a whole model version, from which loading again continues;
/// ``state`` says where the load is.
///
/// **Before the stores are ready the view context (and every other context) sees an empty
/// graph**: fetches and counts return nothing, nothing waits, and a save that reaches the stores
/// fails with ``StrataError/Code/storeNotFound`` saying the store is not loaded yet. When the load
/// ends every store appears at once; objects fetched before then are simply absent, so fetch
/// again (or observe ``state``) once the container is ready.
///
/// Thread-safe; the contexts follow the rules of docs/Concurrency.md.
public final class PersistentContainer: Sendable {
    /// The container's name, used for the default store (`sqlite:NAME.sqlite`).
    public let name: String
    /// The model every store is opened with (the current version).
    public let model: Model
    /// Every version of the model, when the container was made with them.
    public let versionedModel: VersionedModel?
    /// The stores the container loads, with the environment's overrides applied.
    public let storeDescriptions: [StoreDescription]
    /// The coordinator of every context of the container.
    public let coordinator: StoreCoordinator
    /// The context stack (``ContainerStackStyle``).
    public let stack: ContextStack
    /// The stack's style.
    public let stackStyle: ContainerStackStyle
    /// What migrates stores written with another model version while loading.
    public let migrator: (any StoreMigrating)?
    /// Where store URLs find their backends.
    public let registry: StoreRegistry

    let slots: [ContainerStoreSlot]
    /// A problem with the configuration found at init; the load fails with it.
    let setupError: StrataError?
    let loading = Locked(LoadingState())
    let loadQueue: DispatchQueue
    private let mergeObserver: Locked<(any NSObjectProtocol)?>
    /// The remote-change watchers and sequences (see ``remoteChanges()``).
    let remoteChangeState = Locked(RemoteChangeState())

    /// The main-queue context the user interface reads.
    public var viewContext: ObjectContext { stack.viewContext }

    /// The default description for a container named `name`: `sqlite:NAME.sqlite` in the working
    /// directory, every entity, default options.
    public static func defaultStoreDescription(name: String) -> StoreDescription {
        StoreDescription(url: StoreURL(scheme: "sqlite", location: "\(name).sqlite"))
    }

    /// A container for `model`.
    ///
    /// - Parameters:
    ///   - storeDescriptions: the stores; by default ``defaultStoreDescription(name:)``.
    ///   - stack: two or three tiers (three by default: store writes stay off the main queue).
    ///   - migrator: migrates stores written with another model version while loading; without
    ///     one such a store fails the load with ``StrataError/Code/modelMismatch``.
    ///   - environment: the variables that override store URLs (`STRATA_STORE`, ...); the
    ///     process's environment by default, `[:]` to ignore it.
    ///   - registry: where the store URLs find their backends. The engine knows none: pass a
    ///     registry with the backends you link (the `Strata` module adds an initializer without
    ///     this parameter that uses every built-in backend).
    public convenience init(
        name: String,
        model: Model,
        storeDescriptions: [StoreDescription]? = nil,
        stack: ContainerStackStyle = .threeTier,
        migrator: (any StoreMigrating)? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        registry: StoreRegistry
    ) {
        self.init(
            name: name, model: model, versions: nil, storeDescriptions: storeDescriptions, stack: stack,
            migrator: migrator, environment: environment, registry: registry)
    }

    /// A container for the current version of `versionedModel`, which knows the older versions:
    /// a store written with one of them is migrated while loading, and a store written with a
    /// version it does not know fails with ``StrataError/Code/modelMismatch`` listing the versions
    /// it knows.
    ///
    /// - Parameter migrator: migrates older stores; by default the built-in
    ///   `StoreMigrator` (inferred lightweight mapping, native on SQLite and LMDB, streaming
    ///   elsewhere). Pass one with custom stages when inference is not enough. A description with
    ///   ``StoreDescription/migratesAutomatically`` off never migrates.
    /// - Parameter registry: where the store URLs find their backends, as for
    ///   ``init(name:model:storeDescriptions:stack:migrator:environment:registry:)``.
    public convenience init(
        name: String,
        versionedModel: VersionedModel,
        storeDescriptions: [StoreDescription]? = nil,
        stack: ContainerStackStyle = .threeTier,
        migrator: (any StoreMigrating)? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        registry: StoreRegistry
    ) {
        let migrator = migrator ?? (try? StoreMigrator(versions: versionedModel, registry: registry))
        self.init(
            name: name, model: versionedModel.current, versions: versionedModel, storeDescriptions: storeDescriptions,
            stack: stack, migrator: migrator, environment: environment, registry: registry)
    }

    private init(
        name: String, model: Model, versions: VersionedModel?, storeDescriptions: [StoreDescription]?,
        stack style: ContainerStackStyle,
        migrator: (any StoreMigrating)?, environment: [String: String], registry: StoreRegistry
    ) {
        self.name = name
        self.model = model
        self.versionedModel = versions
        self.migrator = migrator
        self.registry = registry
        self.stackStyle = style
        let coordinator = StoreCoordinator(model: model)
        self.coordinator = coordinator

        var problem: StrataError?
        var descriptions = storeDescriptions ?? [Self.defaultStoreDescription(name: name)]
        if descriptions.isEmpty {
            problem = StrataError(
                .invalidConfiguration, "the container '\(name)' was given no store description",
                location: ["container": name])
        }
        do {
            descriptions = try StoreDescription.applyingEnvironment(environment, to: descriptions, registry: registry)
        } catch let error as StrataError {
            problem = problem ?? error
        } catch {
            problem = problem ?? StrataError(.invalidConfiguration, "\(error)")
        }
        var slots: [ContainerStoreSlot] = []
        for description in descriptions {
            let slot = ContainerStoreSlot(url: description.url, model: model)
            do { try coordinator.addStore(slot, configuration: description.configuration) } catch var error
                as StrataError
            {
                error.location["url"] = description.url.description
                problem =
                    problem
                    ?? StrataError(
                        .invalidConfiguration,
                        "the store \(description.url) cannot serve configuration '\(description.configuration)': \(error.message)",
                        location: error.location)
            } catch {
                problem = problem ?? StrataError(.invalidConfiguration, "\(error)")
            }
            slots.append(slot)
        }
        self.storeDescriptions = descriptions
        self.slots = slots
        self.setupError = problem
        self.loadQueue = DispatchQueue(label: "Strata.PersistentContainer.load", qos: .utility)

        switch style {
        case .twoTier:
            let stack = ContextStack.twoTier(coordinator: coordinator)
            self.stack = stack
            let view = stack.viewContext
            // Background contexts of a two-tier stack save straight to the stores; bring each of
            // their saves into the view context, on the main queue.
            mergeObserver = Locked(
                NotificationCenter.default.addObserver(
                    forName: ObjectContext.didSaveNotification, object: nil, queue: nil
                ) { note in
                    guard let saver = note.object as? ObjectContext, saver !== view, saver.parent == nil,
                        saver.coordinator === coordinator,
                        let changes = note.userInfo?[ObjectContext.changesKey] as? ContextChanges
                    else { return }
                    view.perform { try? view.mergeChanges(fromContextDidSave: changes) }
                })
        case .threeTier:
            let stack = ContextStack.threeTier(coordinator: coordinator)
            stack.viewContext.automaticallyMergesChangesFromParent = true
            self.stack = stack
            mergeObserver = Locked(nil)
        }
    }

    deinit {
        if let observer = mergeObserver.withLock({ $0 }) { NotificationCenter.default.removeObserver(observer) }
        stopWatchingRemoteChanges()
        for continuation in remoteChangeState.withLock({ Array($0.streams.values) }) { continuation.finish() }
    }

    /// The stores that are open, in the order of ``storeDescriptions`` (empty until ready).
    public var loadedStores: [any PersistentStore] { slots.compactMap(\.store) }
}

/// The loading state a container keeps under its lock.
struct LoadingState {
    var state: ContainerState = .notLoaded
    var run: LoadRun?
    var nextStream = 0
    var streams: [Int: AsyncStream<LoadProgress>.Continuation] = [:]
}
