import Foundation
import StrataCore
import Synchronization

/// A scratchpad of managed objects: fetch them, change them, and save the changes to the stores
/// in one step. The managed object context of Core Data.
///
/// - **Uniquing**: one object per ID per context; fetching or ``object(with:)`` twice gives the
///   same instance.
/// - **Faulting**: fetched objects start as faults and fill on first access; unchanged objects are
///   held weakly, so iterating a large fetch does not keep every object alive.
/// - **Pending changes**: fetches see the context's unsaved inserts, edits and deletes.
/// - **Saving** applies delete rules, validates every object, and writes everything in one
///   atomic save; if anything fails, neither the context nor the store changes.
///
/// **Concurrency** (docs/Concurrency.md). A context is queue-confined (``ConcurrencyType``):
/// run work on it with ``perform(_:)``, ``performAndWait(_:)`` or `await perform { ... }`, and
/// pass ``ObjectID``s, never objects, between contexts. Outside perform blocks a main-queue
/// context may be used directly on the main thread, and a private-queue context directly from
/// the one thread that *adopts* it (the first thread to use it outside a perform block), so
/// single-threaded code needs no ceremony. Debug builds check this rule at every public entry
/// point of the context and its objects and report a violation naming the context and the
/// thread (see ``concurrencyViolationHandler``); release builds do not check.
public final class ObjectContext: @unchecked Sendable {
    /// The coordinator the context reads from and saves to.
    public let coordinator: StoreCoordinator
    /// Where the context runs its work.
    public let concurrencyType: ConcurrencyType
    /// A name for messages and debugging (concurrency violations name the context by it).
    public let name: String?
    /// The model.
    public var model: Model { coordinator.model }

    // The registry, change set and journal are touched for every object a context handles. A
    // context is confined to one queue at a time and never lends them out across a call that
    // could reach them again, so release builds turn their run-time exclusivity checks off;
    // debug builds keep them, so the test suite still catches an overlapping access. (What this
    // buys is measured in Benchmarks/README.md, "Engine complexity that pays".)

    /// During a save under a merge policy: objects found deleted where the context saves (the
    /// store, or the parent), left out of the save; they leave the context when it succeeds.
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    var vanished: Set<ObjectID> = []
    /// Changes not yet announced by an `objectsDidChange` notification.
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    var pendingChanges = ContextChanges()
    /// Every object of this context by ID, held strongly, in the order they joined (see
    /// ``ObjectRegistry``); objects nobody else references are released by ``sweepRegistry()``
    /// (see ``register(_:)``). Strong references keep the objects' reference counts on the
    /// runtime's fast path (a weak reference to an object moves every retain and release of it
    /// onto a slow, side-table path).
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    private var registry = ObjectRegistry()
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    private var sweepThreshold = 1024
    /// Set while a fetch registers its objects (see ``registeringFetchedObjects(_:)``).
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    private var sweepsDeferred = false
    /// The entity and class of the last object made (see ``makeObject(entity:id:)``).
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    var lastMaker: ObjectMaker?
    /// Objects with unsaved changes (inserted, changed or deleted), held strongly.
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    var changed = ChangeSet()
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    var journal: Journal?
    /// A child's push whose unique check this context's next save may take as its own (see
    /// ``CheckedPush``); consumed by that save.
    var checkedPush: CheckedPush?
    /// The route of the last scope whose snapshot the context looked up (see ``sourceSnapshot(for:)``).
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    var lastRoute: ScopeRoute?
    /// Whether a delete since the last successful save left a fault unloaded or has delete
    /// rules to run: the save then loads what they need first (``loadForDeletes()``).
    #if !DEBUG
        @exclusivity(unchecked)
    #endif
    var deletesNeedLoading = false
    /// Backs ``mergePolicy``.
    let mergePolicyStorage = Locked(MergePolicy.error)
    /// The serial queue perform blocks run on (`DispatchQueue.main` for a main-queue context).
    let queue: DispatchQueue
    /// Which thread may use the context now; see ``checkConfinement(_:)``.
    let confinement = Locked(ConfinementState())
    /// Streams handed out by ``changes(named:)``.
    let streams = Locked(ChangeStreams())
    /// The live queries observing this context (see ``liveResults(for:sectionKeyPath:)``);
    /// `nil` until the first. Confined to the context's queue.
    var liveRegistry: LiveRegistry?
    /// What the live queries read, for a parent preparing a pushed save's merge off this queue.
    let liveMergePlan = Locked(LiveMergePlan())

    /// The context this one saves into, for a child context; `nil` for a context attached to
    /// the coordinator (the only kind that reads and writes stores).
    public let parent: ObjectContext?
    /// This context's children, told about permanent IDs when a save makes them.
    let children = Locked<[WeakContext]>([])
    /// Temporary-to-permanent ID mappings the parent handed down that this context has not
    /// adopted yet (see ``catchUpWithPermanentIDs()``).
    let permanentIDsInTransit = Locked(PermanentIDsInTransit())
    private let mergesFromParent = Atomic<Bool>(false)
    /// Backs ``automaticallyMergesRemoteChanges``.
    let mergesRemoteChanges = Atomic<Bool>(false)
    /// Backs ``transactionAuthor``.
    let transactionAuthorStorage = Locked<String?>(nil)
    /// The author and name the last child's save pushed into this context carried, until this
    /// context saves (see ``transactionOrigin``). Confined to the context's queue.
    var pushedOrigin: TransactionOrigin?
    /// Whether a child was ever made of this context: its changes then move the row cache's
    /// epoch (``RowCache/recordUnsavedChange()``), so its children's faults stop trusting the
    /// snapshots their fetches kept.
    private let hasHadChildren = Atomic<Bool>(false)

    /// Whether this child context merges, by itself and on its own queue, every change its
    /// siblings save into its parent (as ``mergeChanges(fromContextDidSave:)`` does). `false` by
    /// default; no effect on a context without a parent.
    public var automaticallyMergesChangesFromParent: Bool {
        get { mergesFromParent.load(ordering: .relaxed) }
        set { mergesFromParent.store(newValue, ordering: .relaxed) }
    }

    /// A context on `coordinator`: by default a private-queue context, which the first thread
    /// that uses it outside a perform block may keep using directly.
    public convenience init(
        coordinator: StoreCoordinator, concurrencyType: ConcurrencyType = .privateQueue, name: String? = nil
    ) {
        self.init(coordinator: coordinator, parent: nil, concurrencyType: concurrencyType, name: name)
    }

    /// A child of `parent`: it fetches through the parent and sees its unsaved state, and its
    /// ``save()`` pushes its changes into the parent, with no store I/O (see
    /// docs/Concurrency.md). Nest children to any depth.
    public convenience init(
        parent: ObjectContext, concurrencyType: ConcurrencyType = .privateQueue, name: String? = nil
    ) {
        self.init(coordinator: parent.coordinator, parent: parent, concurrencyType: concurrencyType, name: name)
        parent.children.withLock { list in
            list.removeAll { $0.context == nil }
            list.append(WeakContext(context: self))
        }
        parent.hasHadChildren.store(true, ordering: .releasing)
    }

    private init(coordinator: StoreCoordinator, parent: ObjectContext?, concurrencyType: ConcurrencyType, name: String?)
    {
        self.coordinator = coordinator
        self.parent = parent
        self.concurrencyType = concurrencyType
        self.name = name
        switch concurrencyType {
        case .privateQueue: queue = DispatchQueue(label: "Strata.ObjectContext" + (name.map { "." + $0 } ?? ""))
        case .mainQueue: queue = DispatchQueue.main
        }
    }

    deinit {
        for entry in streams.withLock({ $0.continuations.values }) { entry.continuation.finish() }
        liveRegistry?.finishAll()
        // Objects with unsaved changes outlive their context only in their holders' hands:
        // mark them invalid, so that a change to one is refused without asking for the context
        // (see ``ManagedObject/set(_:for:)``).
        for object in changed.values { object.state.isInvalid = true }
    }

    // MARK: Registry

    /// The object registered for `id` in this context, if any; never fetches.
    public func registeredObject(for id: ObjectID) -> ManagedObject? {
        checkConfinement()
        if let object = registry[id] { return object }
        return changed.isEmpty ? nil : changed[id]
    }

    /// Whether no object is registered or changed here: a fetch then makes every object anew.
    var hasNoRegisteredObjects: Bool { registry.isEmpty && changed.isEmpty }

    /// Every object registered in this context that is still in use: changed, or referenced
    /// from outside the context.
    public var registeredObjects: [ManagedObject] {
        checkConfinement()
        sweepRegistry()
        var objects = Array(registry.values)
        // Objects inserted and not saved yet live in the change set only (see `insert(_:)` with an entity name).
        for object in changed.values where registry[object.objectID] == nil { objects.append(object) }
        return objects
    }

    /// The object for `id`: the registered one, or a new fault. Does not check that the object
    /// exists; use ``existingObject(with:)`` for that.
    public func object(with id: ObjectID) -> ManagedObject {
        checkConfinement()
        if let object = registeredObject(for: id) { return object }
        let object = makeObject(entity: entityFor(id), id: id)
        object.state.isFault = true
        register(object)
        return object
    }

    /// The object for `id`, loaded; throws when no store holds it.
    ///
    /// - Throws: ``StrataError/Code/invalidObjectID`` naming the ID when it does not exist.
    public func existingObject(with id: ObjectID) throws -> ManagedObject {
        checkConfinement()
        _ = try model.requireEntity(id.entityName)
        if let object = registeredObject(for: id), !object.state.isFault {
            guard !object.state.isInvalid else {
                throw StrataError(
                    .invalidObjectID, "\(id) no longer exists", location: ["object": id.uriRepresentation])
            }
            return object
        }
        guard let snapshot = try sourceSnapshot(for: id) else {
            throw StrataError(.invalidObjectID, "no store holds \(id)", location: ["object": id.uriRepresentation])
        }
        if let object = registeredObject(for: id) {
            if object.state.isFault { object.apply(snapshot) }
            return object
        }
        let object = makeObject(entity: entityFor(id), id: id)
        object.apply(snapshot)
        register(object)
        return object
    }

    /// Registers `object` under its ID. When the registry has doubled since the last sweep, it
    /// releases the objects only it references (amortized O(1) per registration), so iterating a
    /// large batched fetch keeps a few batches, not every object.
    func register(_ object: ManagedObject) {
        registry.register(object)
        if !sweepsDeferred { sweepRegistryIfDue() }
    }

    /// Sweeps the registry if it has doubled since the last sweep. New objects enter the
    /// registry at their save, not through ``register(_:)``, so inserting also checks: an
    /// import that saves in batches releases the batches nobody holds.
    func sweepRegistryIfDue() {
        if registry.count > sweepThreshold { sweepRegistry() }
    }

    /// Registers a fetch's objects (made by `body`) without sweeping in between: the results
    /// hold them all, so a sweep would find every one in use. A sweep that is due runs first,
    /// so paging through fetches releases the pages nobody holds.
    func registeringFetchedObjects<T>(_ body: () throws -> T) rethrows -> T {
        sweepRegistryIfDue()
        sweepsDeferred = true
        defer { sweepsDeferred = false }
        return try body()
    }

    /// Forgets every registered object that no one outside the registry references (nothing
    /// changed in it, no caller holding it): what a weak registry would have lost already.
    ///
    /// When most objects go (lookups nobody keeps), the survivors close up and the registry's
    /// index is made anew, instead of removing the others one by one.
    func sweepRegistry() {
        registry.removeAll { isKnownUniquelyReferenced(&$0) }
        sweepThreshold = max(1024, registry.count * 2)
    }

    func registryRemove(_ object: ManagedObject) { unregister(object) }

    func resetRegistry() {
        registry.removeAll()
        sweepThreshold = 1024
    }

    /// Forgets `object`; `inChangeSet: false` leaves the change set alone (a save about to
    /// empty it).
    func unregister(_ object: ManagedObject, inChangeSet: Bool = true) {
        registry.remove(object, registeredAs: object.objectID)
        if inChangeSet { changed.removeValue(forKey: object.objectID) }
    }

    /// Registers a saved object under its ID (an object inserted in this context waits in the
    /// change set until its save; see `insert(_:)` with an entity name).
    func registerSaved(_ object: ManagedObject) {
        registry.register(object)
    }

    /// Re-keys `object` from `old` to its current ID (after a temporary ID became permanent).
    /// `inChangeSet: false` leaves the change set alone (a save about to empty it).
    func rekey(_ object: ManagedObject, from old: ObjectID, inChangeSet: Bool = true) {
        registry.remove(object, registeredAs: old)
        registry.register(object)
        liveRegistry?.noteRename(from: old, to: object.objectID)
        if inChangeSet, changed.removeMember(object, filedAs: old) {
            changed.add(object, changing: object.changedSlots)
        }
        if !pendingChanges.inserted.isEmpty, pendingChanges.inserted.remove(old) != nil {
            pendingChanges.inserted.insert(object.objectID)
        }
    }

    /// The entity of `id`. Runs of one entity (a fetch, lookups) compare the ID's scope with
    /// the last one seen, not the entity's name.
    func entityFor(_ id: ObjectID) -> Entity {
        if let maker = lastMaker {
            if maker.knownScope == id.scope { return maker.entity }
            if maker.entity.name == id.entityName {
                lastMaker?.knownScope = id.scope
                return maker.entity
            }
        }
        guard let entity = model.entity(named: id.entityName) else {
            preconditionFailure("\(id) names entity '\(id.entityName)', which the model does not have")
        }
        return entity
    }

    /// A new object of `entity`, of the class registered for it. Fetches and lookups make runs
    /// of one entity, so the entity and class of the last object made are kept at hand
    /// (``StoreCoordinator/registerClasses(_:)`` invalidates them).
    func makeObject(entity: Entity, id: ObjectID) -> ManagedObject {
        makeObject(by: maker(for: entity), id: id)
    }

    /// A new object of `maker`'s entity and class: for a caller that makes many of one entity
    /// and found the maker once (a fetch).
    func makeObject(by maker: ObjectMaker, id: ObjectID) -> ManagedObject {
        // The context is set after the initializer, not passed to it: an initializer takes its
        // arguments retained, and every weak reference to a context puts its reference counts
        // on the runtime's slow path, so passing it cost a slow retain and release per object
        // (143 instructions of a fetched object's 1,052).
        let object = maker.type.init(entity: maker.entity, objectID: id, context: nil)
        object.context = self
        object.slots = maker.slots
        return object
    }

    /// The ``ObjectMaker`` for `entity`: the last one when it is for the same entity and no
    /// class was registered since, else a new one.
    func maker(for entity: Entity) -> ObjectMaker {
        let generation = coordinator.classGeneration
        if let maker = lastMaker, maker.generation == generation,
            maker.entity.isSameDeclaration(as: entity) || maker.entity.name == entity.name
        {
            return maker
        }
        let binding = coordinator.classBinding(for: entity.name)
        let maker = ObjectMaker(entity: entity, binding: binding, generation: generation)
        lastMaker = maker
        return maker
    }

    /// Prepares the registry for `count` more objects at once (a large fetch), instead of
    /// growing it step by step.
    func reserveRegistryCapacity(_ count: Int) {
        registry.reserveCapacity(forAdding: count)
    }

    /// Fills the fault `object` from the snapshot its fetch kept, when nothing changed since (no
    /// read at all); whether it did.
    @inline(__always)
    func fillFromCurrentKeptSnapshot(_ object: ManagedObject) -> Bool {
        let epoch = object.state.keptSnapshotEpoch
        return epoch != 0
            && coordinator.keptSnapshotIsCurrent(for: object.objectID, epoch: epoch, lastRoute: &lastRoute)
            && object.fillFromKeptSnapshot()
    }

    /// Loads a fault's values: from the snapshot a fetch left it (unless something newer is
    /// known), else from the row cache or its store.
    func fireFault(_ object: ManagedObject) {
        // The common case first: a fault a fetch made, read before anything changed since.
        if fillFromCurrentKeptSnapshot(object) { return }
        do {
            if let snapshot = try faultSnapshot(for: object) {
                object.apply(snapshot)
                return
            }
        } catch {
            preconditionFailure("could not load \(object.objectID) from its store: \(error)")
        }
        object.state.isInvalid = true
        preconditionFailure(
            "\(object.objectID) was deleted from its store; a fault of it cannot be filled (use existingObject(with:) when an object may be gone)"
        )
    }

    // MARK: Changes

    /// Records that `object` is about to change `slots` (see ``ChangeSet``; all of them unless
    /// said otherwise): keeps it alive until saved, and remembers its state while a save is in
    /// progress so a failed save can be undone.
    func willChange(_ object: ManagedObject, slots: ChangeSet.Slots = ChangeSet.allSlots) {
        noteChangeForChildren()
        journal?.record(object)
        object.state.writesNeedContext = needsEveryWrite
        // An inserted object's later changes are news only to live queries (it stays inserted
        // for everybody else until its save).
        if !object.state.isDeleted && (!object.state.isInserted || liveRegistry != nil) {
            noteUpdated(object.objectID)
        }
        changed.add(object, changing: slots)
    }

    /// Whether every write to this context's changed objects must reach it: a save is under way
    /// (its journal hears of every change) or live queries observe it (see ``SaveActivity``).
    var needsEveryWrite: Bool { journal != nil || liveRegistry != nil }

    /// Tells the row cache that what this context answers its children may have changed, when
    /// it has had any (see ``RowCache/recordUnsavedChange()``).
    func noteChangeForChildren() {
        if hasHadChildren.load(ordering: .acquiring) { coordinator.rowCache.recordUnsavedChange() }
    }

    /// Inserts a new object of `entityName`, with every attribute at its default.
    ///
    /// ```swift
    /// let note = try context.insert("Note")
    /// note["title"] = "Groceries"
    /// ```
    ///
    /// - Throws: ``StrataError/Code/unknownEntity`` listing the model's entities; nothing is
    ///   inserted then.
    @discardableResult
    public func insert(_ entityName: String) throws -> ManagedObject {
        checkConfinement()
        let maker: ObjectMaker
        if let last = lastMaker, last.entity.name == entityName, last.generation == coordinator.classGeneration {
            maker = last
        } else {
            maker = self.maker(for: try model.requireEntity(entityName))
        }
        return insert(using: maker)
    }

    /// Inserts a new object made by `maker`.
    private func insert(using maker: ObjectMaker) -> ManagedObject {
        let object = makeObject(by: maker, id: ObjectID.temporary(like: maker.temporarySibling))
        // With no defaults, a fresh array of nulls costs less than sharing the default array and
        // copying it value by value at the first change, as copy-on-write would.
        object.attributeValues =
            maker.hasDefaults ? maker.defaultAttributes : ObjectMaker.nullValues(count: maker.defaultAttributes.count)
        object.relationshipValues = maker.emptyRelationships
        object.state.isInserted = true
        object.state.isDirty = true
        // The change set holds the new object (strongly) until it is saved, and lookups by ID
        // look there too: it joins the registry when its save gives it its permanent ID. Saved
        // objects nobody holds any more are released as the registry grows.
        willChange(object)
        noteInserted(object.objectID)
        sweepRegistryIfDue()
        return object
    }

    /// Inserts a new object of a managed object subclass, registering the class with the
    /// coordinator.
    ///
    /// Unlike `insert(_:)` with an entity name, this cannot fail on input: the entity comes from the
    /// class. A class whose entity the model lacks, or whose entity is mapped to another class,
    /// is a programming error and stops the program.
    @discardableResult
    public func insert<T: ManagedObject>(_ type: T.Type) -> T {
        // A run of inserts of one class: its maker is at hand, registered and current, so neither
        // the class's entity name nor the coordinator's class table is looked up again.
        if let last = lastMaker, last.type == type, last.generation == coordinator.classGeneration {
            checkConfinement()
            return unsafeDowncast(insert(using: last), to: T.self)
        }
        let entityName: String
        do { entityName = try coordinator.registeredEntityName(of: type) } catch { preconditionFailure("\(error)") }
        let inserted: ManagedObject
        do { inserted = try insert(entityName) } catch { preconditionFailure("\(error)") }
        guard let object = inserted as? T else {
            preconditionFailure("entity '\(entityName)' is mapped to another class than \(T.self)")
        }
        return object
    }

    /// Marks `object` deleted. Its delete rules run at save; an inserted object simply disappears
    /// (its relationships are nullified at once).
    ///
    /// A fault is not loaded here, unless the snapshot its fetch kept is still current (which
    /// costs no read). The save loads what its deletes need at once, with one request per entity
    /// (see ``loadForDeletes()``): in a root context every deleted fault (its version is checked
    /// against the store, and history may keep some of its values), in a child those whose
    /// delete rules need their relationships (the parent reads the others when the child saves),
    /// and the targets the delete rules reach. So deleting many faults costs a few reads, not
    /// one per object; a fault deleted before it was read is checked at the version the save
    /// reads.
    public func delete(_ object: ManagedObject) {
        checkConfinement()
        precondition(object.context === self, "\(object.objectID) belongs to another context")
        guard !object.state.isDeleted, !object.state.isInvalid else { return }
        if object.state.isInserted {
            detach(object)
            unregister(object)
            object.state.isInvalid = true
            noteDeleted(object.objectID)
            return
        }
        if object.state.isFault { _ = fillFromCurrentKeptSnapshot(object) }
        if object.state.isFault || !object.entity.relationships.isEmpty { deletesNeedLoading = true }
        // A fetch drops deleted objects from the store's answer; none of its slots changes.
        willChange(object, slots: 0)
        object.state.isDeleted = true
        noteDeleted(object.objectID)
    }

    /// Removes `object` from both sides of every relationship it has.
    func detach(_ object: ManagedObject) {
        object.fulfill()
        for (index, relationship) in object.entity.relationships.enumerated() {
            for target in object.relationshipValues[index].targets {
                self.object(with: target).unlink(object.objectID, fromInverseOf: relationship)
            }
        }
    }

    /// Whether the context has unsaved changes.
    public var hasChanges: Bool {
        checkConfinement()
        return changed.values.contains { $0.state.isInserted || $0.state.isDeleted || $0.hasChangedValues }
    }

    /// Objects inserted and not saved yet.
    public var insertedObjects: Set<ManagedObject> {
        checkConfinement()
        return Set(changed.values.filter { $0.state.isInserted })
    }
    /// Objects whose values or relationships changed and are not saved yet.
    public var updatedObjects: Set<ManagedObject> {
        checkConfinement()
        return Set(changed.values.filter { $0.isUpdated })
    }
    /// Objects deleted and not saved yet.
    public var deletedObjects: Set<ManagedObject> {
        checkConfinement()
        return Set(changed.values.filter { $0.state.isDeleted })
    }
}

/// Which writes may skip their object's context. A save keeps a journal of every change made
/// during it (observers of its notifications may make some), and live queries must hear of every
/// write to the context they observe; otherwise a change to an object already changed since its
/// last save needs nothing from its context, so ``ManagedObject/set(_:for:)`` does not load the
/// object's weak reference to it. That is 11.6% of the instructions of inserting and saving
/// objects by attribute name on SQLite (Benchmarks/README.md, "Engine complexity that pays").
///
/// Local to each context: an object's state carries whether its context needs every write
/// (``ManagedObject/State/writesNeedContext``), set as the object joins the change set or is
/// written through the context, and on every member of the change set when the context begins
/// a save or gets its first live query. A save or a live query in one context leaves the writes
/// of every other context on the fast path.
///
/// Invariant, checked in debug builds: an object whose flag is clear, written without its
/// context, is in its context's change set, and that context is neither saving nor observed
/// (``checkContextNotNeeded(by:)``).
enum SaveActivity {
    /// Flags every member of `context`'s change set as needing the context for every write: the
    /// context begins a save, or its first live query. Members joining later are flagged as they
    /// join (``ObjectContext/willChange(_:slots:)``).
    static func requireContext(forChangesIn context: ObjectContext) {
        for object in context.changed.values { object.state.writesNeedContext = true }
    }

    /// Debug builds: stops the program if a write to `object` that skips its context would
    /// lose something (its context is saving or observed, or does not track the object).
    static func checkContextNotNeeded(by object: ManagedObject) {
        assert(
            object.context.map { !$0.needsEveryWrite && $0.changed[object.objectID] === object } ?? true,
            "\(object.objectID) was written without its context while the context needed to see it")
    }
}

/// The entity and class objects of one entity are made with, and the coordinator's class
/// generation they were looked up at. A class: a context reads it for every object it makes,
/// and one retain is cheaper than copying its fields.
final class ObjectMaker {
    let entity: Entity
    let type: ManagedObject.Type
    /// The slot map of `type` on `entity`, when the class declares typed properties.
    let slots: PropertySlots?
    let generation: Int
    /// A new object's attribute values: each attribute's default, or null.
    let defaultAttributes: [Value]
    /// Whether any attribute has a default (else every new value is null).
    let hasDefaults: Bool
    /// A new object's relationships: all empty.
    let emptyRelationships: [RelationshipValue]
    /// A temporary ID of the entity, whose scope new objects' temporary IDs share.
    let temporarySibling: ObjectID
    /// The scope of the last ID found to be of this entity (see ``ObjectContext/entityFor(_:)``).
    var knownScope: ObjectID.Scope?

    /// `count` nulls in a new array. Made by reserving and appending: that allocation is
    /// specialized for `Value` in this module, while `Array(repeating:count:)` asks the Swift
    /// runtime for the array's generic metadata on every call (about 450 instructions).
    static func nullValues(count: Int) -> [Value] {
        var values: [Value] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(.null) }
        return values
    }

    init(entity: Entity, binding: ClassBinding?, generation: Int) {
        self.entity = entity
        self.type = binding?.type ?? ManagedObject.self
        self.slots = binding?.slots
        self.generation = generation
        let fresh = Snapshot(objectID: .temporary(entityName: entity.name), entity: entity)
        temporarySibling = fresh.objectID
        defaultAttributes = fresh.attributes
        hasDefaults = fresh.attributes.contains { !$0.isNull }
        emptyRelationships = fresh.relationships
    }
}

/// The state of every object a save touched, so that a failed save can put it back.
struct Journal {
    struct Entry {
        let object: ManagedObject
        let attributes: [Value]
        let relationships: [RelationshipValue]
        let state: ManagedObject.State
        let original: Snapshot?
    }
    var entries: [ObjectIdentifier: Entry] = [:]
    var changedBefore: ChangeSet

    mutating func record(_ object: ManagedObject) {
        let key = ObjectIdentifier(object)
        if entries[key] == nil {
            entries[key] = Entry(
                object: object, attributes: object.attributeValues, relationships: object.relationshipValues,
                state: object.state, original: object.original)
        }
    }

    /// Drops the copy of the change set taken before the save, once the save has succeeded:
    /// the change set is then the only reference to its storage again, and the save's removals
    /// change it in place instead of copying it whole first.
    mutating func forgetChangedBefore() {
        changedBefore = ChangeSet()
    }

    func restore() {
        for entry in entries.values {
            entry.object.attributeValues = entry.attributes
            entry.object.relationshipValues = entry.relationships
            entry.object.state = entry.state
            entry.object.original = entry.original
        }
    }
}
