import Foundation
import StrataData
import StrataTestSupport
import Testing

/// The README's StrataData sample, as written there (only the class renamed, as the suite
/// already has a `Trip`, and the store put in a temporary directory).
@Model final class ReadmeTrip {
    @Attribute(.unique) var name: String
    var startDate: Date
    init(name: String, startDate: Date) {
        self.name = name
        self.startDate = startDate
    }
}

@Suite struct ReadmeSampleTests {
    @Test func theReadmeSampleSavesAndFetchesATrip() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("trips.store")
            let container = try ModelContainer(for: ReadmeTrip.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(ReadmeTrip(name: "Lofoten", startDate: .now.addingTimeInterval(3_600)))
            context.insert(ReadmeTrip(name: "Past", startDate: .now.addingTimeInterval(-3_600)))
            try context.save()
            let now = Date.now
            let upcoming = try context.fetch(FetchDescriptor<ReadmeTrip>(predicate: #Predicate { $0.startDate > now }))
            #expect(upcoming.map(\.name) == ["Lofoten"])
        }
    }
}
