import Foundation
import StrataData
import StrataTestSupport
import Testing

/// A SwiftData-style trip planner on every backend: `@Model` classes, cascades, a unique
/// attribute, an enum attribute, a transient property.
@Suite struct TripPlanningTests {
    static func container(_ backend: ModelBackend, in directory: URL) throws -> ModelContainer {
        try ModelContainer(for: Trip.self, configurations: backend.configuration(in: directory))
    }

    @Test(arguments: ModelBackend.allCases)
    func aPlannedTripIsSavedWithItsItemsAndAccommodation(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            do {
                let context = ModelContext(try Self.container(backend, in: directory))
                let trip = Trip(name: "Lofoten", destination: "Norway", startDate: Date(timeIntervalSince1970: 10))
                trip.bucketList = [BucketListItem(title: "Reinebringen"), BucketListItem(title: "Kayak")]
                trip.livingAccommodation = LivingAccommodation(address: "Reine 1", placeName: "Rorbu")
                trip.isSelected = true
                trip.status = .booked
                context.insert(trip)
                try context.save()
                #expect(trip.bucketList.count == 2)
                #expect(trip.livingAccommodation?.trip === trip)
            }
            let context = ModelContext(try Self.container(backend, in: directory))
            let trip = try #require(try context.fetch(FetchDescriptor<Trip>()).first)
            #expect(trip.name == "Lofoten")
            #expect(trip.status == .booked)
            #expect(!trip.isSelected)
            #expect(Set(trip.bucketList.map(\.title)) == ["Reinebringen", "Kayak"])
            #expect(trip.livingAccommodation?.placeName == "Rorbu")
            #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 2)

            context.delete(trip)
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 0)
            #expect(try context.fetchCount(FetchDescriptor<LivingAccommodation>()) == 0)
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func everyAttributeTypeComesBackAsWritten(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let configuration = backend.configuration(in: directory, name: "sampler")
            do {
                let context = ModelContext(try ModelContainer(for: Sampler.self, configurations: configuration))
                context.insert(Sampler())
                try context.save()
            }
            let context = ModelContext(try ModelContainer(for: Sampler.self, configurations: configuration))
            let read = try #require(try context.fetch(FetchDescriptor<Sampler>()).first)
            let written = Sampler()
            #expect(read.int == written.int && read.int8 == written.int8 && read.int16 == written.int16)
            #expect(read.int32 == written.int32 && read.int64 == written.int64 && read.uint8 == written.uint8)
            #expect(read.uint16 == written.uint16 && read.uint32 == written.uint32 && read.uint64 == written.uint64)
            #expect(read.double == written.double && read.float == written.float && read.decimal == written.decimal)
            #expect(read.bool == written.bool && read.date == written.date && read.data == written.data)
            #expect(read.uuid == written.uuid && read.url == written.url)
            #expect(read.optionalString == nil && read.optionalInt == 7)
            #expect(read.status == .booked && read.tags == ["a", "b"])
        }
    }

    @Test func insertingAUniqueValueAgainUpdatesTheStoredModel() throws {
        let container = try ModelContainer(
            for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Trip(name: "Oslo", destination: "Norway"))
        try context.save()
        let stored = try #require(try context.fetch(FetchDescriptor<Trip>()).first)

        let again = Trip(name: "Oslo", destination: "Norway, in winter")
        context.insert(again)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 1)
        #expect(again.persistentModelID == stored.persistentModelID)
        #expect(stored.destination == "Norway, in winter")
    }

    @Test func aModelOfAnUnstorableTypeFailsTheContainerNamingTheProperty() throws {
        let error = try #require(throws: StrataError.self) {
            try ModelContainer(for: Orphan.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
        #expect(error.code == .invalidModel)
        #expect(error.message.contains("Orphan.trip"))
    }
}

/// A model whose relationship has no inverse on the other side.
@Model final class Orphan {
    var name: String
    var trip: Trip?
    init(name: String) { self.name = name }
}
