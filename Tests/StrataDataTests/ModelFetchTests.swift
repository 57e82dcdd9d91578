import Foundation
import StrataData
import StrataTestSupport
import Testing

/// Fetch descriptors of `@Model` classes on every backend: predicates, sorts, limits, counts,
/// identifiers, enumeration and deletes by predicate.
@Suite struct ModelFetchTests {
    static func plannedTrips(_ backend: ModelBackend, in directory: URL) throws -> ModelContext {
        let context = ModelContext(
            try ModelContainer(for: Trip.self, configurations: backend.configuration(in: directory)))
        let trips = [("Oslo", TripStatus.done), ("Bergen", .booked), ("Bodø", .planned), ("Tromsø", .booked)]
        for (index, (name, status)) in trips.enumerated() {
            let trip = Trip(name: name, destination: "Norway", startDate: Date(timeIntervalSince1970: Double(index)))
            trip.status = status
            trip.bucketList = (0..<index).map { BucketListItem(title: "\(name) \($0)") }
            context.insert(trip)
        }
        try context.save()
        return context
    }

    @Test(arguments: ModelBackend.allCases)
    func descriptorsSelectOrderAndPage(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let context = try Self.plannedTrips(backend, in: directory)
            let booked = TripStatus.booked
            var descriptor = FetchDescriptor<Trip>(
                predicate: #Predicate { $0.status == booked || $0.name.starts(with: "O") },
                sortBy: [SortDescriptor(\.name, order: .reverse)])
            #expect(try context.fetch(descriptor).map(\.name) == ["Tromsø", "Oslo", "Bergen"])
            #expect(try context.fetchCount(descriptor) == 3)
            descriptor.fetchOffset = 1
            descriptor.fetchLimit = 1
            #expect(try context.fetch(descriptor).map(\.name) == ["Oslo"])
            #expect(try context.fetchIdentifiers(descriptor).count == 1)

            let busy = #Predicate<Trip> { $0.bucketList.count >= 2 }
            #expect(
                try context.fetch(FetchDescriptor(predicate: busy, sortBy: [SortDescriptor(\.startDate)])).map(\.name)
                    == ["Bodø", "Tromsø"])

            var names: [String] = []
            try context.enumerate(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.startDate)]), batchSize: 2) {
                names.append($0.name)
            }
            #expect(names == ["Oslo", "Bergen", "Bodø", "Tromsø"])

            try context.delete(model: Trip.self, where: busy)
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 2)
            #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 1)
        }
    }

    @Test func unsavedChangesAreFetchedUnlessTheDescriptorSaysOtherwise() throws {
        try withTemporaryDirectory { directory in
            let context = try Self.plannedTrips(.memory, in: directory)
            context.insert(Trip(name: "Alta", destination: "Norway"))
            var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Alta" })
            #expect(try context.fetchCount(descriptor) == 1)
            descriptor.includePendingChanges = false
            #expect(try context.fetchCount(descriptor) == 0)
        }
    }

    @Test func aPredicateOnATransientPropertyIsATypedErrorAtFetch() throws {
        try withTemporaryDirectory { directory in
            let context = try Self.plannedTrips(.memory, in: directory)
            let error = try #require(throws: StrataError.self) {
                try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.isSelected }))
            }
            #expect(error.code == .invalidPredicate)
        }
    }
}
