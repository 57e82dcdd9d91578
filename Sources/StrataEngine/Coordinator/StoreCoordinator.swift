import Foundation
import StrataCore
import Synchronization

/// Routes every request to the store that holds its entity, serializes the saves to each store,
/// and keeps a row cache of snapshots shared by its contexts. The persistent store coordinator of
/// Core Data.
///
/// ```swift
/// let coordinator = StoreCoordinator(model: model)
/// try coordinator.addStore(registry.open("sqlite:app.sqlite", model: model))
/// let context = ObjectContext(coordinator: coordinator)
/// ```
///
/// `registry` is a ``StoreRegistry`` with the backends the program links (`BuiltInBackends.registry`
/// of the `Strata` module has every built-in one).
///
/// Several stores can serve one model, one per model configuration: each entity goes to the
/// store of the configuration that names it. Relationships never cross stores.
///
/// The row cache sits in front of stores that read from disk (SQLite, LMDB); a store that keeps
/// its snapshots in memory (``SnapshotServing``, such as the in-memory store) is asked directly.
/// The coordinator asks each store for that capability (``PersistentStore/capability(_:)``), so
/// a wrapped store (a container's) keeps its fast path.
///
/// Thread-safe: contexts on any queue share one coordinator. Saves to one store go one at a time;
/// saves to different stores run side by side, so a slow store holds up only its own saves.
public final class StoreCoordinator: Sendable {
    /// The model every store was opened with.
    public let model: Model
    /// The snapshots shared by the contexts; see ``RowCache``.
    package let rowCache: RowCache
    /// The request shapes already checked against ``model``: a repeated fetch is checked once.
    package let validations: FetchRequestValidationCache
    /// Routes and stores; held only to look up or change them, never across a store's work.
    private let routes = Locked(RouteTable())
    private let classes = Locked(ClassTable())
    private let classGenerations = Atomic<Int>(0)
    /// See ``storeReadCount``.
    private let storeReads = Atomic<Int>(0)
    /// See ``writeGeneration``; moved on by every write (saves, batch operations).
    let writes = Atomic<UInt64>(0)
    /// See ``previousStateCount``.
    let previousStatesGiven = Atomic<Int>(0)
    /// The history tokens of this coordinator's own saves that a remote-change watcher has not
    /// seen yet (see ``OwnHistoryTokens``).
    package let ownHistoryTokens = OwnHistoryTokens()

    /// A coordinator for `model` with no store yet. `rowCacheCapacity` bounds the shared
    /// snapshot cache.
    public init(model: Model, rowCacheCapacity: Int = 50_000) {
        self.model = model
        self.rowCache = RowCache(capacity: max(1, rowCacheCapacity))
        self.validations = FetchRequestValidationCache(model: model)
    }

    /// Maps each class's ``ManagedObject/entityName`` to the class, so contexts create instances
    /// of it for that entity, and binds the class's typed properties
    /// (``ManagedObject/declaredProperties``) to the entity's: see
    /// ``register(_:forEntity:properties:)``.
    ///
    /// - Throws: ``StrataError/Code/unknownEntity`` for a class whose entity the model lacks;
    ///   ``StrataError/Code/invalidModel``, naming the class, property and entity, for a typed
    ///   property the entity lacks or has with another type. The classes before it stay registered.
    public func registerClasses(_ types: [ManagedObject.Type]) throws {
        for type in types {
            if classes.withLock({ $0.byName[type.entityName]?.type == type }) { continue }
            try register(type, forEntity: type.entityName, properties: type.declaredProperties)
        }
    }

    /// The ``ManagedObject/entityName`` of `type`, registered as ``registerClasses(_:)`` does:
    /// for the typed calls of a context, which register their class on every call. Once `type`
    /// is registered this is one lookup by the type's identity, without working out its name
    /// again (`String(describing:)` of a type costs thousands of instructions).
    ///
    /// - Throws: what ``registerClasses(_:)`` throws for `type`.
    func registeredEntityName(of type: ManagedObject.Type) throws -> String {
        if let name = classes.withLock({ $0.nameByType[ObjectIdentifier(type)] }) { return name }
        let name = type.entityName
        try registerClasses([type])
        classes.withLock { table in
            // Only while `type` is still its entity's class: a later registration clears the table.
            if table.byName[name]?.type == type { table.nameByType[ObjectIdentifier(type)] = name }
        }
        return name
    }

    /// Maps `entityName` to `type` (whose instances contexts then make for it) and binds the typed
    /// properties `properties` to the entity's, once: each slot (see ``PropertySlots``) gets the
    /// entity's index of the property of the same name, whatever order the model has them in.
    ///
    /// ``registerClasses(_:)`` calls this with each class's own declarations; a typed API whose
    /// model types are not ``ManagedObject`` subclasses (StrataData's `@Model` classes, backed by
    /// plain objects) passes `ManagedObject.self` and its own declarations.
    ///
    /// - Throws: ``StrataError/Code/unknownEntity`` when the model has no `entityName`;
    ///   ``StrataError/Code/invalidModel`` when a property does not match the entity's.
    public func register(
        _ type: ManagedObject.Type = ManagedObject.self, forEntity entityName: String, properties: [DeclaredProperty]
    ) throws {
        guard let entity = model.entity(named: entityName) else {
            throw StrataError(
                .unknownEntity,
                "\(type) maps to entity '\(entityName)', which the model does not have; it has: \(model.entities.map(\.name).joined(separator: ", "))",
                location: ["class": "\(type)", "entity": entityName])
        }
        let slots = properties.isEmpty ? nil : try PropertySlots(binding: properties, of: "\(type)", to: entity)
        let binding = ClassBinding(type: type, properties: properties, slots: slots)
        classes.withLock { table in
            if let current = table.byName[entityName], current.type == type, current.properties == properties {
                return
            }
            table.byName[entityName] = binding
            // Another class or binding for the entity: the names known by type may be stale.
            table.nameByType = [:]
            classGenerations.add(1, ordering: .releasing)
        }
    }

    /// Changes whenever ``registerClasses(_:)`` maps an entity to a new class, so contexts may
    /// keep the class of the entity they last made objects for.
    var classGeneration: Int { classGenerations.load(ordering: .acquiring) }

    /// The class whose instances represent `entityName` (``ManagedObject`` when none is registered).
    public func managedClass(for entityName: String) -> ManagedObject.Type {
        classes.withLock { $0.byName[entityName]?.type } ?? ManagedObject.self
    }

    /// The class registered for `entityName` and its slot map, if any.
    func classBinding(for entityName: String) -> ClassBinding? {
        classes.withLock { $0.byName[entityName] }
    }

    /// The row cache's epoch (see ``RowCache``): a fetch whose faults keep the snapshots it
    /// read takes it before reading the store.
    var rowCacheEpoch: UInt64 { rowCache.epoch }

    /// Moves on whenever a save through this coordinator ends (written or not) and whenever a
    /// store's route changes: a check made against the stores at one generation still holds at
    /// the same generation, as far as this coordinator's writes go. A save in progress when the
    /// generation is read moves it on when it ends.
    var writeGeneration: UInt64 { writes.load(ordering: .acquiring) }

    /// How many requests that read rows went to a store (fetches, and snapshots of single
    /// objects the row cache did not hold). For tests of how many round trips an operation makes.
    package var storeReadCount: Int { storeReads.load(ordering: .relaxed) }

    /// How many previous states (``SaveRequest/Update/previous``, ``SaveRequest/Delete/previous``)
    /// saves took from the row cache for stores that record history; for tests that pin a save
    /// to sending them instead of the store reading them. Counted in debug builds only (0 in
    /// release builds, which measure nothing).
    package var previousStateCount: Int { previousStatesGiven.load(ordering: .relaxed) }

    /// How many snapshots the row cache holds now (at most the capacity given at init).
    public var cachedSnapshotCount: Int { rowCache.count }

    /// The stores, in the order they were added.
    public var stores: [any PersistentStore] { routes.withLock { $0.entries.map(\.store) } }

    /// Adds `store` for the entities of `configuration` (every entity by default).
    ///
    /// - Throws: ``StrataError/Code/invalidModel`` when the configuration does not exist, the
    ///   store was opened with another model, or an entity is already served by another store.
    public func addStore(_ store: any PersistentStore, configuration: String = Model.defaultConfiguration) throws {
        guard store.model.versionHash == model.versionHash else {
            throw StrataError(
                .modelMismatch,
                "the store \(store.url) was opened with model hash \(store.model.versionHash), the coordinator has \(model.versionHash)"
            )
        }
        guard let names = model.entityNames(inConfiguration: configuration) else {
            throw StrataError(
                .invalidModel,
                "the model has no configuration '\(configuration)'; it has: \(([Model.defaultConfiguration] + model.configurations.keys.sorted()).joined(separator: ", "))",
                location: ["configuration": configuration])
        }
        let serving = store.capability((any SnapshotServing).self)
        try routes.withLock { table in
            for name in names {
                if let other = table.byName[name] {
                    throw StrataError(
                        .invalidModel,
                        "entity '\(name)' is already served by \(other.store.url); a configuration may not share entities with another store's",
                        location: ["entity": name])
                }
            }
            let entry = StoreEntry(store: store, position: table.entries.count)
            let route = Route(entry: entry, serving: serving)
            table.entries.append(entry)
            table.current[ObjectIdentifier(entry)] = route
            for name in names { table.byName[name] = route }
        }
    }

    /// Asks `store` again for its capabilities (whether it serves snapshots from memory, and so
    /// needs no row cache) and forgets the rows cached for its entities. The container calls it
    /// whenever one of its store slots gets, loses or changes the store it forwards to.
    ///
    /// Waits for a save to `store` in progress; later requests take the new route.
    func refreshCapabilities(of store: any PersistentStore) {
        guard let entry = routes.withLock({ table in table.entries.first { $0.store === store } }) else { return }
        entry.saveLock.lock()
        defer {
            writes.add(1, ordering: .releasing)
            entry.saveLock.unlock()
        }
        let fresh = Route(entry: entry, serving: store.capability((any SnapshotServing).self))
        let names = routes.withLock { table -> Set<String> in
            guard let old = table.current[ObjectIdentifier(entry)] else { return [] }
            var names: Set<String> = []
            for (name, route) in table.byName where route === old {
                table.byName[name] = fresh
                names.insert(name)
            }
            table.byScope = table.byScope.filter { $0.value !== old }
            table.current[ObjectIdentifier(entry)] = fresh
            old.retire()
            return names
        }
        rowCache.removeAll { names.contains($0.entityName) }
    }

    /// The store that serves `entityName`.
    public func store(for entityName: String) throws -> any PersistentStore {
        try route(for: entityName).store
    }

    /// Whether the coordinator has exactly one store (every save then goes to it whole).
    var hasOneStore: Bool { routes.withLock { $0.entries.count == 1 } }

    /// Whether the store of `entityName` rejects a save that breaks a unique constraint as it
    /// writes, at no extra cost (``UniqueConstraintEnforcing``); `false` when no store serves it.
    func enforcesUniqueConstraints(of entityName: String) -> Bool {
        (try? route(for: entityName))?.enforcesUniqueConstraints ?? false
    }

    private func route(for entityName: String) throws -> Route {
        if let route = routes.withLock({ $0.byName[entityName] }) { return route }
        _ = try model.requireEntity(entityName)
        throw StrataError(
            .storeNotFound, "no store serves entity '\(entityName)'; add a store for a configuration that names it",
            location: ["entity": entityName])
    }

    /// Runs `request` on the store of its entity (see ``PersistentStore/fetch(_:)``), caching
    /// the snapshots it returns (unless the store serves snapshots from memory itself).
    ///
    /// The request is checked against the model here (``FetchRequest/validated(for:)``), once
    /// for each request shape (see ``FetchRequestValidationCache``); the store does not check it
    /// again.
    public func fetch(_ request: FetchRequest) throws -> FetchResult {
        let route = try route(for: request.entityName)
        storeReads.add(1, ordering: .relaxed)
        let result = try route.store.fetch(validations.validated(request))
        if route.serving == nil, route.isCurrent, case .snapshots(let snapshots) = result { rowCache.store(snapshots) }
        return result
    }

    /// The route of `id`'s entity, found by the ID's scope (no hashing of the entity's name once
    /// the scope was seen). Routes are never removed; a store's route is replaced only when its
    /// capabilities are refreshed, and the replaced one is retired.
    private func route(for id: ObjectID) throws -> Route {
        if let route = routes.withLock({ $0.byScope[id.scope] }) { return route }
        let route = try route(for: id.entityName)
        routes.withLock { table in
            if route.isCurrent { table.byScope[id.scope] = route }
        }
        return route
    }

    /// The snapshot of `id`: from the row cache, else from its store; `nil` when it does not exist.
    public func snapshot(for id: ObjectID) throws -> Snapshot? {
        try snapshot(for: id, via: try route(for: id))
    }

    /// The snapshot of `id`, with the route of the last scope a context looked up kept in
    /// `lastRoute`: a run of lookups of one entity (faults fired one by one) takes no lock here.
    /// A kept route is used while it is current (not replaced by ``refreshCapabilities(of:)``).
    func snapshot(for id: ObjectID, lastRoute: inout ScopeRoute?) throws -> Snapshot? {
        if let lastRoute, lastRoute.scope == id.scope, lastRoute.route.isCurrent {
            return try snapshot(for: id, via: lastRoute.route)
        }
        let route = try route(for: id)
        lastRoute = ScopeRoute(scope: id.scope, route: route)
        return try snapshot(for: id, via: route)
    }

    /// The snapshot to fill a fault of `id` with, which a fetch begun at row cache epoch
    /// `epoch` left it (`kept`): see ``RowCache/snapshotToFill(_:kept:epoch:)``; the store's
    /// when the row cache cannot vouch for `kept`. A fetch of more rows than the row cache
    /// holds thus fills its faults without a store round trip each.
    func snapshot(for id: ObjectID, kept: Snapshot, epoch: UInt64, lastRoute: inout ScopeRoute?) throws -> Snapshot? {
        let route: Route
        if let lastRoute, lastRoute.scope == id.scope, lastRoute.route.isCurrent {
            route = lastRoute.route
        } else {
            route = try self.route(for: id)
            lastRoute = ScopeRoute(scope: id.scope, route: route)
        }
        if let serving = route.serving { return try serving.snapshot(for: id) }
        if let snapshot = rowCache.snapshotToFill(id, kept: kept, epoch: epoch) { return snapshot }
        return try snapshot(for: id, via: route)
    }

    /// Whether a fault of `id` that keeps the snapshot of a fetch begun at row cache epoch
    /// `epoch` fills from it now, for a context and a child alike: nothing changed since (see
    /// ``RowCache/keptSnapshotIsCurrent(epoch:)``) and its store does not serve snapshots from
    /// memory. Takes no lock while `lastRoute` holds the route of `id`'s scope; `false` when
    /// the route cannot be found (the caller's slower path reports it).
    func keptSnapshotIsCurrent(for id: ObjectID, epoch: UInt64, lastRoute: inout ScopeRoute?) -> Bool {
        guard rowCache.keptSnapshotIsCurrent(epoch: epoch) else { return false }
        let route: Route
        if let lastRoute, lastRoute.scope == id.scope, lastRoute.route.isCurrent {
            route = lastRoute.route
        } else {
            guard let found = try? self.route(for: id) else { return false }
            route = found
            lastRoute = ScopeRoute(scope: id.scope, route: route)
        }
        return route.serving == nil
    }

    /// The snapshot to fill a child context's fault of `id` with, which a fetch begun at row
    /// cache epoch `epoch` left it (`kept`, its parent's answer from the stores): see
    /// ``RowCache/snapshotToFill(_:kept:epoch:throughParent:)``. `nil` when the row cache cannot
    /// vouch for it, or the store serves snapshots from memory (no epochs then): the child asks
    /// its parent.
    func keptSnapshotForChild(of id: ObjectID, kept: Snapshot, epoch: UInt64, lastRoute: inout ScopeRoute?) throws
        -> Snapshot?
    {
        let route: Route
        if let lastRoute, lastRoute.scope == id.scope, lastRoute.route.isCurrent {
            route = lastRoute.route
        } else {
            route = try self.route(for: id)
            lastRoute = ScopeRoute(scope: id.scope, route: route)
        }
        guard route.serving == nil else { return nil }
        return rowCache.snapshotToFill(id, kept: kept, epoch: epoch, throughParent: true)
    }

    /// The snapshots of `ids` that exist, by ID: each from the row cache (or a store that
    /// serves snapshots) when it holds it, the others read with one store request per entity
    /// instead of one per object. Temporary IDs have none.
    func snapshots(for ids: [ObjectID]) throws -> [ObjectID: Snapshot] {
        var found: [ObjectID: Snapshot] = [:]
        found.reserveCapacity(ids.count)
        var missing: [ObjectID.Scope: (route: Route, ids: [ObjectID])] = [:]
        var lastRoute: ScopeRoute?
        for id in ids where !id.isTemporary {
            let route: Route
            if let last = lastRoute, last.scope == id.scope, last.route.isCurrent {
                route = last.route
            } else {
                route = try self.route(for: id)
                lastRoute = ScopeRoute(scope: id.scope, route: route)
            }
            if let serving = route.serving {
                if let snapshot = try serving.snapshot(for: id) { found[id] = snapshot }
            } else if let cached = rowCache.snapshot(for: id) {
                found[id] = cached
            } else {
                missing[id.scope, default: (route, [])].ids.append(id)
            }
        }
        for (_, read) in missing {
            storeReads.add(1, ordering: .relaxed)
            let loaded = try read.route.store.snapshots(of: read.ids[0].entityName, among: read.ids)
            if read.route.isCurrent { rowCache.store(loaded) }
            for snapshot in loaded { found[snapshot.objectID] = snapshot }
        }
        return found
    }

    private func snapshot(for id: ObjectID, via route: Route) throws -> Snapshot? {
        if let serving = route.serving { return try serving.snapshot(for: id) }
        if let cached = rowCache.snapshot(for: id) { return cached }
        storeReads.add(1, ordering: .relaxed)
        let found = try route.store.snapshots(of: id.entityName, among: [id])
        if route.isCurrent { rowCache.store(found) }
        return found.first
    }

    /// New permanent IDs for objects of `entityName`.
    public func obtainPermanentIDs(for entityName: String, count: Int) throws -> [ObjectID] {
        try store(for: entityName).obtainPermanentIDs(for: entityName, count: count)
    }

    /// Runs `body` while no other save can go through this coordinator (saves made by `body`
    /// itself, on this thread, go through). A context that lost several rounds of conflict
    /// resolution in a row resolves and saves inside it, so it cannot lose again to a context
    /// of this process.
    ///
    /// Holds the save lock of every store, taken in the order the stores were added.
    func withSavesHeld<T>(_ body: () throws -> T) rethrows -> T {
        try withSaveLocks(of: routes.withLock { $0.entries }, body)
    }

    /// Runs `body` while no save through this coordinator goes to `store` (one of its stores, as
    /// added); saves to other stores go on. Without such a store, runs `body` at once.
    func withSavesHeld<T>(to store: any PersistentStore, _ body: () throws -> T) rethrows -> T {
        guard let entry = routes.withLock({ table in table.entries.first { $0.store === store } }) else {
            return try body()
        }
        return try withSaveLocks(of: [entry], body)
    }

    /// Runs `body` holding the save locks of `entries`, taken in the order the stores were added
    /// (whatever the order of `entries`), so two saves that span stores never wait for each other
    /// in a cycle.
    private func withSaveLocks<T>(of entries: [StoreEntry], _ body: () throws -> T) rethrows -> T {
        let ordered = entries.count > 1 ? entries.sorted { $0.position < $1.position } : entries
        for entry in ordered { entry.saveLock.lock() }
        defer { for entry in ordered.reversed() { entry.saveLock.unlock() } }
        return try body()
    }

    /// Applies `request`, split by store. Each store's part is saved under that store's save
    /// lock only, so saves to other stores go on meanwhile; a request that spans stores holds
    /// the locks of all of them while its parts are saved one after another. With one store the
    /// save is atomic; across stores each store's part is atomic and a failure stops the later
    /// parts (the error says which store failed).
    @discardableResult
    public func save(_ request: SaveRequest) throws -> SaveResult {
        if let whole = try singleStoreRoute(for: request) {
            return try withSaveLocks(of: [whole.entry]) {
                try save(request, to: currentRoute(of: whole.entry))
            }
        }
        var parts: [ObjectIdentifier: (entry: StoreEntry, request: SaveRequest)] = [:]
        var order: [ObjectIdentifier] = []
        func add(_ entry: StoreEntry) -> ObjectIdentifier {
            let key = ObjectIdentifier(entry)
            if parts[key] == nil {
                parts[key] = (
                    entry, SaveRequest(transactionAuthor: request.transactionAuthor, contextName: request.contextName)
                )
                order.append(key)
            }
            return key
        }
        func part(_ entity: String) throws -> ObjectIdentifier { add(try route(for: entity).entry) }
        for insert in request.inserts { parts[try part(insert.objectID.entityName)]!.request.inserts.append(insert) }
        for update in request.updates {
            parts[try part(update.snapshot.objectID.entityName)]!.request.updates.append(update)
        }
        for delete in request.deletes { parts[try part(delete.objectID.entityName)]!.request.deletes.append(delete) }
        if !request.metadataChanges.isEmpty, let first = routes.withLock({ $0.entries.first }) {
            parts[add(first)]!.request.metadataChanges = request.metadataChanges
        }
        return try withSaveLocks(of: order.map { parts[$0]!.entry }) {
            var result = SaveResult()
            for key in order {
                let (entry, part) = parts[key]!
                let partial = try save(part, to: currentRoute(of: entry))
                result.versions.merge(partial.versions) { $1 }
                result.historyToken = result.historyToken ?? partial.historyToken
            }
            return result
        }
    }

    /// The route of `entry`'s store now; read under the store's save lock, it stays current
    /// until the lock is released (``refreshCapabilities(of:)`` takes the lock too).
    private func currentRoute(of entry: StoreEntry) -> Route {
        routes.withLock { $0.current[ObjectIdentifier(entry)]! }
    }

    /// The route of every object in `request` when they all go to one store (the usual case),
    /// so the request goes whole, without being split; `nil` when they do not.
    private func singleStoreRoute(for request: SaveRequest) throws -> Route? {
        var route: Route?
        var lastEntity = ""
        func visit(_ entityName: String) throws -> Bool {
            if entityName == lastEntity { return true }
            lastEntity = entityName
            let next = try self.route(for: entityName)
            if let route, route.store !== next.store { return false }
            route = next
            return true
        }
        // IDs are read in place (indices, not copies of each snapshot), and each run of one
        // scope (entity and store) is visited once.
        var lastScope: ObjectID.Scope?
        func visit(_ id: ObjectID) throws -> Bool {
            if id.scope == lastScope { return true }
            lastScope = id.scope
            return try visit(id.entityName)
        }
        for index in request.inserts.indices where !(try visit(request.inserts[index].objectID)) { return nil }
        for index in request.updates.indices where !(try visit(request.updates[index].snapshot.objectID)) { return nil }
        for index in request.deletes.indices where !(try visit(request.deletes[index].objectID)) { return nil }
        guard let route else { return nil }
        if !request.metadataChanges.isEmpty, let first = routes.withLock({ $0.entries.first }), first !== route.entry {
            return nil
        }
        return route
    }

    /// Saves `part` to the store of `route` and keeps the row cache in step with it (conflicts
    /// refresh the cached snapshots they found stale). Runs under the store's save lock.
    private func save(_ part: SaveRequest, to route: Route) throws -> SaveResult {
        defer { writes.add(1, ordering: .releasing) }
        let partial: SaveResult
        let sent = route.serving == nil && route.recordsHistory ? withPreviousStates(part) : part
        do { partial = try route.store.save(sent) } catch let error as StrataError where error.code == .conflict {
            if route.serving == nil {
                rowCache.recordSave(
                    written: error.conflicts.compactMap(\.storedSnapshot), deleted: error.conflicts.map(\.objectID))
            }
            throw error
        }
        if let token = partial.historyToken { ownHistoryTokens.record(token) }
        guard route.serving == nil else { return partial }
        // The cache keeps the last of the written snapshots (updates after inserts) only: the
        // others are neither copied with their versions nor cached.
        let total = part.inserts.count + part.updates.count
        let kept = rowCache.savedSnapshotsToCache(of: total)
        let updates = part.updates.suffix(kept)
        let inserts = part.inserts.suffix(kept - updates.count)
        var written: [Snapshot] = []
        written.reserveCapacity(kept)
        for insert in inserts {
            var s = insert
            s.version = partial.versions[s.objectID] ?? 1
            written.append(s)
        }
        for update in updates {
            var s = update.snapshot
            s.version = partial.versions[s.objectID] ?? update.expectedVersion + 1
            written.append(s)
        }
        rowCache.recordSave(written: written, deleted: part.deletes.map(\.objectID), omitted: total - kept)
        return partial
    }
}

/// The routes by entity name, the same routes by the scope of IDs seen (filled as IDs come), and
/// the stores in the order they were added with the current route of each.
private struct RouteTable: Sendable {
    var byName: [String: Route] = [:]
    var byScope: [ObjectID.Scope: Route] = [:]
    var entries: [StoreEntry] = []
    var current: [ObjectIdentifier: Route] = [:]
}

/// One store of a coordinator, with the lock its saves take.
private final class StoreEntry: Sendable {
    let store: any PersistentStore
    /// Where the store comes in the order saves spanning several stores take their locks.
    let position: Int
    /// Held while a save goes to the store; recursive, so ``StoreCoordinator/withSavesHeld(_:)``
    /// can save inside it.
    let saveLock = NSRecursiveLock()

    init(store: any PersistentStore, position: Int) {
        self.store = store
        self.position = position
    }
}

/// The route of one scope of IDs, as a context keeps it between lookups.
struct ScopeRoute {
    let scope: ObjectID.Scope
    fileprivate let route: Route
}

/// Where the coordinator sends an entity's requests: its store and, when the store serves
/// snapshots from memory, its ``SnapshotServing`` capability (no row cache then).
/// A class, so that passing a route around (every lookup by ID) is one retain, not two
/// existential copies. Retired when the store's capabilities are refreshed: holders then look
/// the route up again.
private final class Route: Sendable {
    let entry: StoreEntry
    let store: any PersistentStore
    let serving: (any SnapshotServing)?
    /// Whether the store is ``UniqueConstraintEnforcing``.
    let enforcesUniqueConstraints: Bool
    /// Whether the store records persistent history (``HistoryRecording/recordsHistory``): its
    /// saves then get the previous states the row cache holds.
    let recordsHistory: Bool
    private let retired = Atomic<Bool>(false)

    init(entry: StoreEntry, serving: (any SnapshotServing)?) {
        self.entry = entry
        self.store = entry.store
        self.serving = serving
        enforcesUniqueConstraints = entry.store.capability((any UniqueConstraintEnforcing).self) != nil
        recordsHistory = entry.store.capability((any HistoryRecording).self)?.recordsHistory ?? false
    }

    /// Whether this is still its store's route.
    var isCurrent: Bool { !retired.load(ordering: .acquiring) }

    func retire() { retired.store(true, ordering: .releasing) }
}

/// The classes registered with a coordinator.
private struct ClassTable {
    /// The class of each entity that has one.
    var byName: [String: ClassBinding] = [:]
    /// The entity name of each class that ``StoreCoordinator/registeredEntityName(of:)``
    /// registered and that is still the class of its entity.
    var nameByType: [ObjectIdentifier: String] = [:]
}
