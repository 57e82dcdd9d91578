import StrataData

/// The planner's steps, in order, on one store: each prints what it did and checks it.
@MainActor
struct PlannerTour {
    let store: StoreArgument
    var checks = PlannerChecks()

    init(store: StoreArgument) {
        self.store = store
    }

    mutating func run() async throws {
        try saveWithTheFirstRelease()
        let container = try ModelContainer(
            for: Schema(versionedSchema: TripsSchemaV2.self), migrationPlan: TripsMigrationPlan.self,
            configurations: store.configuration)
        try checkTheMigration(container)
        let imported = try await importInTheBackground(container)
        try fetch(container)
        try upsert(container)
        try keepTransientValuesOutOfTheStore(container)
        try deleteWithCascades(container, reykjavik: imported[0])
    }

    /// The first release of the app saves two trips with its own schema, then quits.
    func saveWithTheFirstRelease() throws {
        let container = try ModelContainer(
            for: Schema(versionedSchema: TripsSchemaV1.self), configurations: store.configuration)
        let context = ModelContext(container)
        for trip in SampleTrips.firstRelease() { context.insert(trip) }
        try context.save()
        print(
            "v1: saved \(try context.fetchCount(FetchDescriptor<TripsSchemaV1.Trip>())) trips and "
                + "\(try context.fetchCount(FetchDescriptor<TripsSchemaV1.BucketListItem>())) bucket-list items "
                + "to \(store.description) with schema \(TripsSchemaV1.versionIdentifier)")
    }

    /// The second release opened the store through the migration plan: the trips are there,
    /// with their new attributes.
    mutating func checkTheMigration(_ container: ModelContainer) throws {
        let context = container.mainContext
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        print(
            "v2: opened with schema \(TripsSchemaV2.versionIdentifier) through the lightweight stage: "
                + trips.map { "\($0.name) (\($0.status.rawValue), \($0.bucketList.count) items)" }
                .joined(separator: ", "))
        checks.expect(trips.map(\.name) == ["Kyoto", "Lofoten"], "the migration kept both trips")
        checks.expect(trips.allSatisfy { $0.status == .planned }, "the trips it kept got the new status .planned")
        let kayak = trips.last?.bucketList.first { $0.title == "Sea kayak" }
        checks.expect(
            kayak?.notes == "book the guide" && kayak?.hasReservation == true && kayak?.isInPlan == false,
            "the renamed attribute 'notes' holds what 'details' held")
        checks.expect(
            trips.last?.livingAccommodation?.placeName == "Rorbu", "the place to stay kept its trip")
    }

    /// An importer actor adds trips in a context of its own; the main context sees them at its
    /// next fetch. Identifiers go back in to mark one booked.
    mutating func importInTheBackground(_ container: ModelContainer) async throws -> [PersistentIdentifier] {
        let importer = TripImporter(modelContainer: container)
        let ids = try await importer.importTrips(SampleTrips.imported)
        let context = container.mainContext
        let total = try context.fetchCount(FetchDescriptor<Trip>())
        print("importer: added \(ids.count) trips in the background; the main context now fetches \(total)")
        checks.expect(total == 6, "the main context fetches the 2 migrated and 4 imported trips")

        let lisbon = ids[1]
        let booked = try await importer.markBooked([lisbon])
        let bookedTrip = context.model(for: lisbon) as? Trip
        let bookedStatus = TripStatus.booked
        let bookedNames = try context.fetch(
            FetchDescriptor<Trip>(predicate: #Predicate { $0.status == bookedStatus }, sortBy: [SortDescriptor(\.name)])
        ).map(\.name)
        print(
            "importer: marked \(bookedTrip?.name ?? "?") booked; booked trips: \(bookedNames.joined(separator: ", "))")
        checks.expect(
            booked == 1 && bookedNames == ["Lisbon", "Reykjavík"], "the importer found Lisbon by its identifier")
        return ids
    }

    /// Fetches with predicates and sorts.
    mutating func fetch(_ container: ModelContainer) throws {
        let context = container.mainContext
        let from = SampleTrips.day(2027, 1, 1)
        let done = TripStatus.done
        let upcoming = try context.fetch(
            FetchDescriptor<Trip>(
                predicate: #Predicate { $0.startDate >= from && $0.status != done },
                sortBy: [SortDescriptor(\.startDate)]))
        print("fetch: trips from 2027 on, by start date: \(upcoming.map(\.name).joined(separator: ", "))")
        checks.expect(
            upcoming.map(\.name) == ["Reykjavík", "Lisbon", "Lofoten", "Kyoto", "Patagonia"],
            "the predicate on a date and an enum, sorted by date")

        var portugal = FetchDescriptor<Trip>(
            predicate: #Predicate { $0.destination == "Portugal" }, sortBy: [SortDescriptor(\.name, order: .reverse)])
        portugal.fetchLimit = 1
        let last = try context.fetch(portugal).map(\.name)
        print("fetch: the last trip to Portugal by name: \(last.joined())")
        checks.expect(last == ["Porto"], "a reverse sort with a fetch limit")

        let reserved = try context.fetch(
            FetchDescriptor<BucketListItem>(
                predicate: #Predicate { $0.hasReservation }, sortBy: [SortDescriptor(\.title)])
        ).map(\.title)
        print("fetch: bucket-list items with a reservation: \(reserved.joined(separator: ", "))")
        checks.expect(reserved == ["Sea kayak", "Tea ceremony"], "a predicate on a Bool, sorted by title")
    }

    /// Inserting a trip whose unique name a stored trip has updates the stored trip.
    mutating func upsert(_ container: ModelContainer) throws {
        let context = container.mainContext
        let before = try context.fetchCount(FetchDescriptor<Trip>())
        let again = Trip(
            name: "Patagonia", destination: "Chile and Argentina", startDate: SampleTrips.day(2028, 1, 5),
            endDate: SampleTrips.day(2028, 2, 1))
        context.insert(again)
        try context.save()
        let stored = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Patagonia" }))
        print("upsert: inserted Patagonia again; \(stored.count) stored, going to \(stored.first?.destination ?? "?")")
        checks.expect(
            try context.fetchCount(FetchDescriptor<Trip>()) == before && stored.count == 1
                && stored.first?.destination == "Chile and Argentina"
                && stored.first?.persistentModelID == again.persistentModelID,
            "the unique name updated the stored trip instead of adding one")
    }

    /// A transient property lives in the instance only.
    mutating func keepTransientValuesOutOfTheStore(_ container: ModelContainer) throws {
        let context = container.mainContext
        let lofoten = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Lofoten" })).first
        lofoten?.isSelected = true
        try context.save()
        let elsewhere = try ModelContext(container).fetch(
            FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Lofoten" })
        ).first
        print("transient: Lofoten selected here (\(lofoten?.isSelected == true)), not in another context")
        checks.expect(
            lofoten?.isSelected == true && elsewhere?.isSelected == false, "a transient value stays in its instance")
    }

    /// Deleting a trip deletes its bucket list and place to stay (the cascade rule); so does
    /// deleting the trips a predicate picks.
    mutating func deleteWithCascades(_ container: ModelContainer, reykjavik id: PersistentIdentifier) throws {
        let context = container.mainContext
        func counts() throws -> (trips: Int, items: Int, stays: Int) {
            (
                try context.fetchCount(FetchDescriptor<Trip>()),
                try context.fetchCount(FetchDescriptor<BucketListItem>()),
                try context.fetchCount(FetchDescriptor<LivingAccommodation>())
            )
        }
        let before = try counts()
        guard let reykjavik = context.model(for: id) as? Trip else {
            checks.expect(false, "the main context finds Reykjavík by its identifier")
            return
        }
        context.delete(reykjavik)
        try context.save()
        let afterOne = try counts()
        print(
            "delete: Reykjavík and its 3 items and place to stay: trips \(before.trips) -> \(afterOne.trips), "
                + "items \(before.items) -> \(afterOne.items), places \(before.stays) -> \(afterOne.stays)")
        checks.expect(
            afterOne == (before.trips - 1, before.items - 3, before.stays - 1), "deleting a trip cascades to its items")

        let done = TripStatus.done
        try context.delete(model: Trip.self, where: #Predicate { $0.status == done })
        try context.save()
        let afterDone = try counts()
        print(
            "delete: the trips done: trips \(afterOne.trips) -> \(afterDone.trips), items \(afterOne.items) -> \(afterDone.items)"
        )
        checks.expect(
            afterDone == (afterOne.trips - 1, afterOne.items - 1, afterOne.stays),
            "deleting by a predicate cascades too")
    }
}
