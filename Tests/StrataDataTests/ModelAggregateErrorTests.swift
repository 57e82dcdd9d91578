import Foundation
import StrataData
import StrataTestSupport
import Testing

/// What an aggregate cannot compute is a typed ``StrataError`` naming it, on every backend.
@Suite struct ModelAggregateErrorTests {
    @Test(arguments: ModelBackend.allCases)
    func aSumBeyondItsTypeIsAnArithmeticOverflow(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let context = try ModelAggregateTests.stays(backend, in: directory, count: 0)
            for _ in 0..<2 {
                let stay = Stay(city: "Oslo", nights: 1, price: 1)
                stay.points = .max
                context.insert(stay)
            }
            try context.save()
            let error = try #require(throws: StrataError.self) {
                try context.aggregate(AggregateDescriptor(.sum(\Stay.points)))
            }
            #expect(error.code == .arithmeticOverflow)
            #expect(error.location["entity"] == "Stay")
            #expect(try context.aggregate(AggregateDescriptor(.max(\Stay.points))) == .max, "other aggregates work")
        }
    }

    @Test func aKeyPathThatIsNotStoredIsAnInvalidRequestNamingIt() throws {
        try withTemporaryDirectory { directory in
            let context = try ModelAggregateTests.stays(.memory, in: directory, count: 2)
            let errors = [
                try #require(throws: StrataError.self) {
                    try context.aggregate(AggregateDescriptor(.min(\Stay.isFavourite)))
                },
                try #require(throws: StrataError.self) {
                    try context.aggregate(GroupedAggregateDescriptor<Stay>([.count], groupBy: [\.isFavourite]))
                },
                try #require(throws: StrataError.self) {
                    try context.fetchDistinct(\Stay.isFavourite)
                },
                try #require(throws: StrataError.self) {
                    try context.aggregate(
                        GroupedAggregateDescriptor<Stay>(
                            [.count], groupBy: [\.city], having: .max(\.isFavourite) == true))
                },
            ]
            for error in errors {
                #expect(error.code == .invalidRequest)
                #expect(error.location["entity"] == "Stay")
                #expect(error.location["keyPath"]?.contains("isFavourite") == true, "\(error)")
            }
        }
    }

    @Test func aPredicateWithoutCounterpartIsAnInvalidPredicate() throws {
        try withTemporaryDirectory { directory in
            let context = try ModelAggregateTests.stays(.memory, in: directory, count: 2)
            let error = try #require(throws: StrataError.self) {
                try context.aggregate(AggregateDescriptor(.count, predicate: #Predicate<Stay> { $0.isFavourite }))
            }
            #expect(error.code == .invalidPredicate)
        }
    }

    @Test func aDescriptorAskingNothingAndACountThroughAToManyAreInvalidRequests() throws {
        try withTemporaryDirectory { directory in
            let context = ModelContext(
                try ModelContainer(for: Trip.self, configurations: ModelBackend.memory.configuration(in: directory)))
            context.insert(Trip(name: "Oslo", destination: "Norway"))
            let empty = try #require(throws: StrataError.self) {
                try context.aggregate(GroupedAggregateDescriptor<Trip>([]))
            }
            #expect(empty.code == .invalidRequest)
            let toMany = try #require(throws: StrataError.self) {
                try context.aggregate(AggregateDescriptor(.count(\Trip.bucketList)))
            }
            #expect(toMany.code == .invalidRequest)
        }
    }
}
