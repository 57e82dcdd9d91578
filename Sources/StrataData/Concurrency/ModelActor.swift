/// An actor that works on a container's models off the main actor, in a context of its own:
/// SwiftData's `ModelActor`. Declare one with ``ModelActor()``:
///
/// ```swift
/// @ModelActor actor TripImporter {
///     func importTrips(_ names: [String]) throws -> [PersistentIdentifier] {
///         let trips = names.map { Trip(name: $0, destination: "") }
///         for trip in trips { modelContext.insert(trip) }
///         try modelContext.save()
///         return trips.map(\.persistentModelID)
///     }
/// }
///
/// let importer = TripImporter(modelContainer: container)
/// let ids = try await importer.importTrips(["Oslo", "Lofoten"])
/// let oslo = mainContext.model(for: ids[0]) as? Trip
/// ```
///
/// The actor's ``modelContext`` is a context of its own on the container's stores, used only
/// by the actor's work, which its ``modelExecutor`` runs on that context's queue. Its saves go
/// to the stores; other contexts see them at their next fetch. Models stay in the actor: pass
/// ``PersistentIdentifier``s in and out, and get a model back in a context with
/// ``ModelContext/model(for:)``, or in the actor with `self[id, as: Trip.self]`.
public protocol ModelActor: Actor {
    /// The container whose stores the actor works on.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor that runs the actor's work and owns its context.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The executor of the actor's work: ``modelExecutor``, which must be a serial executor
    /// (``DefaultSerialModelExecutor`` is). A model executor that is not stops the program with
    /// a message naming the actor.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        guard let serial = modelExecutor as? any SerialExecutor else {
            preconditionFailure(
                "the model executor of \(Self.self) (\(type(of: modelExecutor))) is not a SerialExecutor; "
                    + "use DefaultSerialModelExecutor")
        }
        return serial.asUnownedSerialExecutor()
    }

    /// The actor's context: insert, fetch, delete and save through it from the actor's methods.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The model of type `T` whose identifier is `id` in the actor's context, or `nil` when no
    /// store holds it (deleted, or never saved by the context that made it) or it is of
    /// another type.
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as type: T.Type) -> T? {
        modelContext.existingModel(for: id, as: type)
    }
}

/// Makes an actor a ``ModelActor``: its `modelContainer`, its `modelExecutor` (a
/// ``DefaultSerialModelExecutor`` around a new context of the container) and
/// `init(modelContainer:)`. SwiftData's `@ModelActor`.
///
/// ```swift
/// @ModelActor actor TripImporter {
///     func count() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Trip>()) }
/// }
/// let importer = TripImporter(modelContainer: container)
/// ```
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "StrataMacros", type: "ModelActorMacro")
