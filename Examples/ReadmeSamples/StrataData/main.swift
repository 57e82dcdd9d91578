// The StrataData sample of README.md's "A first look", as the README shows it (ReadmeSampleTests
// check that every README sample appears verbatim in Examples/ReadmeSamples). CI runs it in a
// directory of its own (it writes trips.store there).

import StrataData

@Model final class Trip {
    @Attribute(.unique) var name: String
    var startDate: Date
    init(name: String, startDate: Date) {
        self.name = name
        self.startDate = startDate
    }
}

let container = try ModelContainer(
    for: Trip.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: "trips.store")))
let context = ModelContext(container)
context.insert(Trip(name: "Lofoten", startDate: .now))
try context.save()
let now = Date.now
let upcoming = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.startDate > now }))
