import Foundation
import StrataData
import Testing

/// The runtime behind `@Model`, on models written out as the macro expands them.
@Suite struct HandWrittenModelTests {
    @Test func aModelMadeByItsInitializerIsSavedAndFetchedBack() throws {
        let container = try ModelContainer(
            for: PlainTrip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let trip = PlainTrip(name: "Oslo", start: Date(timeIntervalSince1970: 100))
        trip.budget = Budget(amount: 900, currency: "NOK")
        #expect(trip.name == "Oslo")
        #expect(trip.status == .planned)
        #expect(trip.modelContext == nil)
        context.insert(trip)
        #expect(trip.modelContext === context)
        #expect(trip.persistentModelID.isTemporary)
        try context.save()
        #expect(!trip.persistentModelID.isTemporary)

        let other = ModelContext(container)
        let fetched = try other.fetch(FetchDescriptor<PlainTrip>())
        #expect(fetched.map(\.name) == ["Oslo"])
        #expect(fetched.first?.status == .planned)
        #expect(fetched.first?.budget == Budget(amount: 900, currency: "NOK"))
        #expect(fetched.first?.persistentModelID == trip.persistentModelID)
        #expect(try other.fetch(FetchDescriptor<PlainTrip>()).first === fetched.first)
    }

    @Test func relatedModelsSetBeforeInsertionAreInsertedWithTheModel() throws {
        let container = try ModelContainer(
            for: PlainTrip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let trip = PlainTrip(name: "Bergen", start: .now)
        trip.items = [PlainItem(title: "Fløyen"), PlainItem(title: "Bryggen")]
        context.insert(trip)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<PlainItem>()) == 2)
        #expect(trip.items.allSatisfy { $0.trip === trip })

        context.delete(trip)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<PlainItem>()) == 0)
    }

    @Test func predicatesAndSortsApplyToFetches() throws {
        let container = try ModelContainer(
            for: PlainTrip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for (index, name) in ["Oslo", "Bergen", "Tromsø", "Bodø"].enumerated() {
            context.insert(PlainTrip(name: name, start: Date(timeIntervalSince1970: Double(index))))
        }
        try context.save()
        var descriptor = FetchDescriptor<PlainTrip>(
            predicate: #Predicate { $0.name.starts(with: "B") }, sortBy: [SortDescriptor(\.name, order: .reverse)])
        #expect(try context.fetch(descriptor).map(\.name) == ["Bodø", "Bergen"])
        descriptor.fetchLimit = 1
        #expect(try context.fetch(descriptor).map(\.name) == ["Bodø"])
        #expect(try context.fetchCount(FetchDescriptor<PlainTrip>()) == 4)
        try context.delete(model: PlainTrip.self, where: #Predicate { $0.name == "Oslo" })
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<PlainTrip>()) == 3)
    }
}
