import StrataData
import Testing

/// What a SwiftData program finds after `import StrataData` alone.
@Suite struct ModuleSurfaceTests {
    struct Trip {
        var name: String
        var start: Date
    }

    @Test func foundationsPredicateComesWithTheModule() throws {
        let cutoff = Date(timeIntervalSince1970: 1_000)
        let later = #Predicate<Trip> { $0.start > cutoff && $0.name.starts(with: "B") }
        let trips = [
            Trip(name: "Berlin", start: Date(timeIntervalSince1970: 2_000)),
            Trip(name: "Bern", start: Date(timeIntervalSince1970: 500)),
            Trip(name: "Oslo", start: Date(timeIntervalSince1970: 3_000)),
        ]
        let matching = try trips.filter { try later.evaluate($0) }.map(\.name)
        #expect(matching == ["Berlin"])
    }
}
