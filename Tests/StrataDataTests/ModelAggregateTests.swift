import Foundation
import StrataData
import StrataTestSupport
import Testing

/// A stay at a hotel: every kind of property an aggregate reads.
@Model final class Stay {
    var city: String
    var country: String?
    var nights: Int
    var rating: Int?
    var price: Double
    var discount: Double?
    var fee: Decimal
    var arrival: Date
    var points: Int64
    var status: TripStatus?
    @Transient var isFavourite = false

    init(city: String, nights: Int, price: Double) {
        self.city = city
        self.country = nil
        self.nights = nights
        self.rating = nil
        self.price = price
        self.discount = nil
        self.fee = 0
        self.arrival = Date(timeIntervalSince1970: 0)
        self.points = 0
        self.status = nil
    }
}

/// Aggregate and distinct fetches of `@Model` classes on every backend give what Swift computes
/// over a fetch of the same models.
@Suite struct ModelAggregateTests {
    static let cities = ["Oslo", "Bergen", "Tromso", "Alta", "Bodo"]

    /// A context with `count` stays of pseudo-random values (the same on every run), saved.
    static func stays(_ backend: ModelBackend, in directory: URL, count: Int = 60) throws -> ModelContext {
        let context = ModelContext(
            try ModelContainer(for: Stay.self, configurations: backend.configuration(in: directory, name: "stays")))
        var random = SplitMix(state: 7)
        for _ in 0..<count {
            let stay = Stay(
                city: cities[random.next(cities.count)], nights: random.next(9) + 1,
                price: Double(random.next(40_000)) / 100)
            stay.country = random.next(4) == 0 ? nil : (random.next(2) == 0 ? "NO" : "SE")
            stay.rating = random.next(3) == 0 ? nil : random.next(5) + 1
            stay.discount = random.next(2) == 0 ? nil : Double(random.next(1000)) / 8
            stay.fee = Decimal(random.next(1000)) / 4
            stay.arrival = Date(timeIntervalSince1970: Double(random.next(1_000_000)))
            stay.points = Int64(random.next(1_000_000))
            stay.status = [nil, .planned, .booked, .done][random.next(4)]
            context.insert(stay)
        }
        try context.save()
        return context
    }

    static let longStays = #Predicate<Stay> { $0.nights > 4 }

    @Test(arguments: ModelBackend.allCases)
    func singleAggregatesMatchSwiftOverAFetch(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let context = try Self.stays(backend, in: directory)
            for predicate in [nil, Self.longStays] {
                let stays = try context.fetch(FetchDescriptor(predicate: predicate))
                #expect(!stays.isEmpty)
                func value<V>(_ aggregate: Aggregate<Stay, V>) throws -> V {
                    try context.aggregate(AggregateDescriptor(aggregate, predicate: predicate))
                }
                let ratings = stays.compactMap(\.rating)
                #expect(try value(.count) == stays.count)
                #expect(try value(.count(\.rating)) == ratings.count)
                #expect(try value(.sum(\.nights)) == stays.map(\.nights).reduce(0, +))
                #expect(try value(.sum(\.rating)) == ratings.reduce(0, +))
                #expect(try value(.sum(\.points)) == stays.map(\.points).reduce(0, +))
                #expect(try value(.sum(\.fee)) == stays.map(\.fee).reduce(0, +))
                #expect(isClose(try value(.sum(\.price)), stays.map(\.price).reduce(0, +)))
                #expect(isClose(try value(.sum(\.discount)), stays.compactMap(\.discount).reduce(0, +)))
                #expect(
                    isClose(try value(.average(\.rating)), Double(ratings.reduce(0, +)) / Double(ratings.count)))
                #expect(
                    isClose(try value(.average(\.price)), stays.map(\.price).reduce(0, +) / Double(stays.count)))
                #expect(try value(.min(\.city)) == stays.map(\.city).min())
                #expect(try value(.max(\.city)) == stays.map(\.city).max())
                #expect(try value(.min(\.rating)) == ratings.min())
                #expect(try value(.max(\.rating)) == ratings.max())
                #expect(try value(.min(\.arrival)) == stays.map(\.arrival).min())
                #expect(try value(.max(\.price)) == stays.map(\.price).max())
                #expect(try value(.max(\.country)) == stays.compactMap(\.country).max())
            }
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func groupsMatchSwiftOverAFetch(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let context = try Self.stays(backend, in: directory)
            let stays = try context.fetch(FetchDescriptor(predicate: Self.longStays))
            let expected = Dictionary(grouping: stays) { CityAndCountry(city: $0.city, country: $0.country) }
                .filter { $0.value.count > 2 }

            let groups = try context.aggregate(
                GroupedAggregateDescriptor<Stay>(
                    [.count, .sum(\.nights), .average(\.price), .max(\.rating)], groupBy: [\.city, \.country],
                    having: .count > 2, predicate: Self.longStays))
            let keys = groups.map { CityAndCountry(city: $0[\.city], country: $0[\.country]) }
            #expect(keys == expected.keys.sorted(), "one group per key, ascending, nil first")
            for group in groups {
                let members = try #require(expected[CityAndCountry(city: group[\.city], country: group[\.country])])
                #expect(group[.count] == members.count)
                #expect(group[.sum(\.nights)] == members.map(\.nights).reduce(0, +))
                #expect(isClose(group[.average(\.price)], members.map(\.price).reduce(0, +) / Double(members.count)))
                #expect(group[.max(\.rating)] == members.compactMap(\.rating).max())
            }
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func havingCombinesConditionsOnAggregatesNotListed(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let context = try Self.stays(backend, in: directory)
            let stays = try context.fetch(FetchDescriptor<Stay>())
            let byStatus = Dictionary(grouping: stays, by: \.status)
            let nights = byStatus.mapValues { $0.map(\.nights).reduce(0, +) }
            let most = try #require(nights.values.max())
            let fewest = try #require(byStatus.values.map(\.count).min())
            func kept(_ status: TripStatus?) -> Bool {
                let ratings = byStatus[status, default: []].compactMap(\.rating)
                let meanRating = ratings.isEmpty ? nil : Double(ratings.reduce(0, +)) / Double(ratings.count)
                return (nights[status]! >= most && !(meanRating.map { $0 < 3 } ?? false))
                    || byStatus[status]!.count == fewest
            }
            let groups = try context.aggregate(
                GroupedAggregateDescriptor<Stay>(
                    [.count], groupBy: [\.status],
                    having: (.sum(\.nights) >= most && !(.average(\.rating) < 3)) || .count == fewest))
            let expected = byStatus.keys.filter(kept).sorted { ($0?.rawValue ?? "") < ($1?.rawValue ?? "") }
            #expect(groups.map { $0[\.status] } == expected)
            #expect(!groups.isEmpty && groups.count < byStatus.count, "the condition keeps some groups, not all")
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func groupsAreSortedAndPaged(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let context = try Self.stays(backend, in: directory)
            let byCity = Dictionary(grouping: try context.fetch(FetchDescriptor<Stay>()), by: \.city)
            let nights: [String: Int] = byCity.mapValues { stays in stays.map(\.nights).reduce(0, +) }
            let busiest: [String] = nights.keys.sorted { (a: String, b: String) -> Bool in
                let (x, y) = (nights[a]!, nights[b]!)
                return x == y ? a < b : x > y
            }
            var descriptor = GroupedAggregateDescriptor<Stay>(
                [.count], groupBy: [\.city], sortBy: [AggregateSortDescriptor(.sum(\.nights), order: .reverse)])
            descriptor.fetchOffset = 1
            descriptor.fetchLimit = 2
            #expect(try context.aggregate(descriptor).map { $0[\.city] } == Array(busiest[1...2]))

            let reversed = try context.aggregate(
                GroupedAggregateDescriptor<Stay>(
                    [.count], groupBy: [\.city], sortBy: [AggregateSortDescriptor(\.city, order: .reverse)]))
            #expect(reversed.map { $0[\.city] } == byCity.keys.sorted(by: >))
            let error = try #require(throws: StrataError.self) {
                try context.aggregate(
                    GroupedAggregateDescriptor<Stay>([.count], groupBy: [\.city], sortBy: [.init(\.country)]))
            }
            #expect(error.code == .invalidRequest)
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func distinctValuesAreAscendingWithNilFirst(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let context = try Self.stays(backend, in: directory)
            let stays = try context.fetch(FetchDescriptor<Stay>())
            #expect(try context.fetchDistinct(\Stay.city) == Set(stays.map(\.city)).sorted())
            let countries = try context.fetchDistinct(\Stay.country)
            #expect(countries == [nil] + Set(stays.compactMap(\.country)).sorted())
            let statuses = try context.fetchDistinct(\Stay.status)
            #expect(statuses == [nil] + Set(stays.compactMap(\.status)).sorted { $0.rawValue < $1.rawValue })
            let long = try context.fetchDistinct(\Stay.nights, predicate: Self.longStays)
            #expect(long == Set(stays.map(\.nights).filter { $0 > 4 }).sorted())
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func noMatchingModelGivesZeroSumsAndNilElsewhere(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let context = try Self.stays(backend, in: directory, count: 3)
            let none = #Predicate<Stay> { $0.nights > 100 }
            #expect(try context.aggregate(AggregateDescriptor(.count, predicate: none)) == 0)
            #expect(try context.aggregate(AggregateDescriptor(.sum(\Stay.nights), predicate: none)) == 0)
            #expect(try context.aggregate(AggregateDescriptor(.average(\Stay.price), predicate: none)) == nil)
            #expect(try context.aggregate(AggregateDescriptor(.min(\Stay.city), predicate: none)) == nil)
            let all = try context.aggregate(GroupedAggregateDescriptor<Stay>([.count], predicate: none))
            #expect(all.map { $0[.count] } == [0], "without group keys, one group, also when empty")
            #expect(
                try context.aggregate(GroupedAggregateDescriptor<Stay>([.count], groupBy: [\.city], predicate: none))
                    .isEmpty)
            #expect(try context.fetchDistinct(\Stay.city, predicate: none).isEmpty)
        }
    }

    @Test func unsavedChangesCountUnlessTheDescriptorSaysOtherwise() throws {
        try withTemporaryDirectory { directory in
            let context = try Self.stays(.sqlite, in: directory, count: 5)
            let saved = try context.aggregate(AggregateDescriptor(.sum(\Stay.nights)))
            context.insert(Stay(city: "Kiruna", nights: 1000, price: 1))
            var descriptor = AggregateDescriptor(.sum(\Stay.nights))
            #expect(try context.aggregate(descriptor) == saved + 1000)
            descriptor.includePendingChanges = false
            #expect(try context.aggregate(descriptor) == saved)
            #expect(try context.fetchDistinct(\Stay.city).contains("Kiruna"))
            #expect(try !context.fetchDistinct(\Stay.city, includePendingChanges: false).contains("Kiruna"))
        }
    }
}

/// A group key of stays, ordered as aggregate groups are: by city, then country with nil first.
private struct CityAndCountry: Hashable, Comparable {
    var city: String
    var country: String?

    static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.city != rhs.city { return lhs.city < rhs.city }
        switch (lhs.country, rhs.country) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        case (let l?, let r?): return l < r
        }
    }
}

/// Whether two floating-point results agree but for rounding (sums may add in another order).
func isClose(_ lhs: Double?, _ rhs: Double?) -> Bool {
    guard let lhs, let rhs else { return lhs == nil && rhs == nil }
    return abs(lhs - rhs) <= 1e-9 * max(1, abs(lhs), abs(rhs))
}

/// A small deterministic generator, so every run sees the same values.
struct SplitMix {
    var state: UInt64

    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}
