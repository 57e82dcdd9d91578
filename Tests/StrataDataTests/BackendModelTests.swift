import Foundation
import StrataData
import StrataTestSupport
import Testing

/// Models saved, reopened, fetched, changed and deleted on every backend.
@Suite struct BackendModelTests {
    @Test(arguments: ModelBackend.allCases)
    func savedModelsComeBackFromAReopenedStore(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let configuration = backend.configuration(in: directory)
            do {
                let container = try ModelContainer(for: PlainTrip.self, configurations: configuration)
                let context = ModelContext(container)
                let trip = PlainTrip(name: "Lofoten", start: Date(timeIntervalSince1970: 1_000))
                trip.status = .booked
                trip.budget = Budget(amount: 1_200, currency: "EUR")
                trip.items = [PlainItem(title: "Reine"), PlainItem(title: "Henningsvær")]
                context.insert(trip)
                context.insert(PlainTrip(name: "Senja", start: Date(timeIntervalSince1970: 2_000)))
                #expect(context.hasChanges)
                try context.save()
                #expect(!context.hasChanges)
            }
            let container = try ModelContainer(for: PlainTrip.self, configurations: configuration)
            let context = ModelContext(container)
            let trips = try context.fetch(FetchDescriptor<PlainTrip>(sortBy: [SortDescriptor(\.name)]))
            #expect(trips.map(\.name) == ["Lofoten", "Senja"])
            let lofoten = try #require(trips.first)
            #expect(lofoten.status == .booked)
            #expect(lofoten.budget == Budget(amount: 1_200, currency: "EUR"))
            #expect(lofoten.start == Date(timeIntervalSince1970: 1_000))
            #expect(Set(lofoten.items.map(\.title)) == ["Reine", "Henningsvær"])
            #expect(trips[1].status == .planned)
            #expect(trips[1].budget == nil)

            lofoten.name = "Lofoten islands"
            #expect(context.hasChanges)
            context.rollback()
            #expect(lofoten.name == "Lofoten")

            context.delete(lofoten)
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<PlainItem>()) == 0)
            #expect(try context.fetchIdentifiers(FetchDescriptor<PlainTrip>()) == [trips[1].persistentModelID])
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func aConfigurationThatDoesNotAllowSavingRefusesToSave(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let writable = backend.configuration(in: directory)
            let keep = try ModelContainer(for: PlainTrip.self, configurations: writable)
            let context = ModelContext(keep)
            context.insert(PlainTrip(name: "Tromsø", start: .now))
            try context.save()
            if backend == .lmdb { return } // one environment per file and process: not opened twice
            let readOnly = ModelConfiguration(url: writable.url, allowsSave: false)
            let container = try ModelContainer(for: PlainTrip.self, configurations: readOnly)
            let reader = ModelContext(container)
            #expect(try reader.fetchCount(FetchDescriptor<PlainTrip>()) == 1)
            reader.insert(PlainTrip(name: "Alta", start: .now))
            let error = try #require(throws: StrataError.self) { try reader.save() }
            #expect(error.code == .readOnly)
        }
    }
}
