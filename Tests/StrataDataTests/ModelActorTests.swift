import Foundation
import StrataData
import StrataTestSupport
import Testing

/// A model actor as a SwiftData program declares one: it plans trips in a context of its own.
@ModelActor actor TripDesk {
    /// Inserts a trip per name, each with `itemsEach` bucket-list items, saves, and returns the
    /// trips' identifiers.
    func addTrips(_ names: [String], itemsEach: Int = 0) throws -> [PersistentIdentifier] {
        let trips = names.map { name in
            let trip = Trip(name: name, destination: "somewhere")
            trip.bucketList = (0..<itemsEach).map { BucketListItem(title: "\(name) \($0)") }
            return trip
        }
        for trip in trips { modelContext.insert(trip) }
        try modelContext.save()
        return trips.map(\.persistentModelID)
    }

    /// Sets the destination of the trip `id` and saves; `false` when there is no such trip.
    func setDestination(of id: PersistentIdentifier, to destination: String) throws -> Bool {
        guard let trip = self[id, as: Trip.self] else { return false }
        trip.destination = destination
        try modelContext.save()
        return true
    }

    /// Whether `self[id, as:]` finds a trip, and a bucket-list item, for `id`.
    func lookUp(_ id: PersistentIdentifier) -> (trip: Bool, item: Bool) {
        (self[id, as: Trip.self] != nil, self[id, as: BucketListItem.self] != nil)
    }

    /// Deletes the trip `id` (its items go with it, by the cascade) and saves.
    func deleteTrip(_ id: PersistentIdentifier) throws {
        guard let trip = self[id, as: Trip.self] else { return }
        modelContext.delete(trip)
        try modelContext.save()
    }

    /// The names of the stored trips whose destination is `destination`, sorted.
    func tripNames(goingTo destination: String) throws -> [String] {
        let descriptor = FetchDescriptor<Trip>(
            predicate: #Predicate { $0.destination == destination }, sortBy: [SortDescriptor(\.name)])
        return try modelContext.fetch(descriptor).map(\.name)
    }

    /// Where the actor's work runs: inside a perform block of its context, and on the main thread or not.
    func whereWorkRuns() -> (inContextBlock: Bool, onMainThread: Bool) {
        (modelContext.objectContext.isPerformingOnCurrentThread, Thread.isMainThread)
    }

    /// Asks the executor whether the caller is isolated to it (it stops the program if not).
    func checkIsolation() {
        (modelExecutor as? DefaultSerialModelExecutor)?.checkIsolated()
    }
}

/// `@ModelActor`: background work in a context of the actor's own, whose saves reach the store
/// and the other contexts, with identifiers passed in and out. The tests' own context is the
/// container's main context, on the main actor, as in a SwiftData app: a context is used from the
/// thread or actor that made it, and a nonisolated test may resume on another thread after `await`.
@Suite @MainActor struct ModelActorTests {
    static func memoryContainer() throws -> ModelContainer {
        try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    @Test func theActorsWorkRunsInItsContextsPerformBlocksOffTheMainThread() async throws {
        let desk = TripDesk(modelContainer: try Self.memoryContainer())
        let inside = await desk.whereWorkRuns()
        #expect(inside.inContextBlock)
        #expect(!inside.onMainThread)
        await desk.checkIsolation()
        #expect(!desk.modelExecutor.modelContext.objectContext.isPerformingOnCurrentThread)
        #expect(desk.modelExecutor is DefaultSerialModelExecutor)
    }

    @Test(arguments: ModelBackend.allCases)
    func whatTheActorSavesReachesTheStoreAndOtherContexts(_ backend: ModelBackend) async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanUp() }
        let configuration = backend.configuration(in: directory.url, name: "desk")
        let ids: [PersistentIdentifier]
        do {
            let container = try ModelContainer(for: Trip.self, configurations: configuration)
            let context = container.mainContext
            #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 0)

            ids = try await TripDesk(modelContainer: container).addTrips(["Oslo", "Bergen", "Lofoten"], itemsEach: 2)
            #expect(ids.allSatisfy { !$0.isTemporary })
            #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 3)
            #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 6)
            let bergen = try #require(context.model(for: ids[1]) as? Trip)
            #expect(bergen.name == "Bergen")
            #expect(bergen.bucketList.map(\.title).sorted() == ["Bergen 0", "Bergen 1"])
        }
        guard backend != .memory else { return }
        let reopened = ModelContext(try ModelContainer(for: Trip.self, configurations: configuration))
        let names = try reopened.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["Bergen", "Lofoten", "Oslo"])
    }

    @Test func identifiersPassInAndChangesComeBackAtTheNextFetch() async throws {
        let container = try Self.memoryContainer()
        let context = container.mainContext
        context.insert(Trip(name: "Lisbon", destination: "Portugal"))
        context.insert(Trip(name: "Porto", destination: "Portugal"))
        try context.save()
        let lisbon = try #require(try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).first)

        let desk = TripDesk(modelContainer: container)
        #expect(try await desk.setDestination(of: lisbon.persistentModelID, to: "Portugal, in spring"))
        #expect(try await desk.tripNames(goingTo: "Portugal") == ["Porto"])

        let fetched = try context.fetch(
            FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Portugal, in spring" }))
        #expect(fetched.map(\.name) == ["Lisbon"])
        let another = ModelContext(container)
        #expect((another.model(for: lisbon.persistentModelID) as? Trip)?.destination == "Portugal, in spring")
    }

    @Test func anIdentifierOfNoStoredModelOrOfAnotherTypeFindsNothing() async throws {
        let container = try Self.memoryContainer()
        let desk = TripDesk(modelContainer: container)
        let ids = try await desk.addTrips(["Rome"], itemsEach: 1)
        let found = await desk.lookUp(ids[0])
        #expect(found.trip && !found.item)

        let context = container.mainContext
        let unsaved = Trip(name: "Naples", destination: "Italy")
        context.insert(unsaved)
        let notSaved = await desk.lookUp(unsaved.persistentModelID)
        #expect(!notSaved.trip && !notSaved.item)

        try await desk.deleteTrip(ids[0])
        let deleted = await desk.lookUp(ids[0])
        #expect(!deleted.trip)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<BucketListItem>()) == 0)
    }

    @Test func callsFromManyTasksRunOneAtATime() async throws {
        let container = try Self.memoryContainer()
        let desk = TripDesk(modelContainer: container)
        try await withThrowingTaskGroup(of: [PersistentIdentifier].self) { group in
            for index in 0..<24 {
                group.addTask { try await desk.addTrips(["Trip \(index)"], itemsEach: 1) }
            }
            for try await ids in group { #expect(ids.count == 1) }
        }
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 24)
        #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 24)
    }
}
