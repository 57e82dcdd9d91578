import Foundation
import StrataCore
import StrataData
import StrataTestSupport
import Testing

/// A context keeps the request of each fetch descriptor shape it fetched: a fetch repeated with
/// other constants fills them into that request, without asking the container's translations
/// again, and gives what a new context gives.
@Suite struct FetchPlanTests {
    static let names = (0..<30).map { "Trip \($0)" }

    /// A container on `backend` with a trip per name, destinations in the reverse order.
    static func withTrips(
        _ backend: ModelBackend, _ body: (ModelContainer) throws -> Void
    ) throws {
        try withTemporaryDirectory { directory in
            let container = try ModelContainer(for: Trip.self, configurations: backend.configuration(in: directory))
            let context = ModelContext(container)
            for (index, name) in names.enumerated() {
                context.insert(Trip(name: name, destination: "D \(names.count - index)"))
            }
            try context.save()
            try body(container)
        }
    }

    @Test(arguments: [ModelBackend.memory, .sqlite])
    func aLoopOfFetchesByKeyAsksForItsTranslationOnce(_ backend: ModelBackend) throws {
        try Self.withTrips(backend) { (container) throws in
            let context = ModelContext(container)
            let asked = container.predicateTranslations.requestCount
            let translated = container.predicateTranslations.fullTranslationCount
            for name in Self.names.reversed() {
                var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.name == name })
                descriptor.fetchLimit = 1
                #expect(try context.fetch(descriptor).map(\.name) == [name])
            }
            #expect(container.predicateTranslations.requestCount == asked + 1)
            #expect(container.predicateTranslations.fullTranslationCount == translated + 1)
            #expect(context.fetchPlanCount == 1)
        }
    }

    @Test func aNewContextFillsInTheContainersKeptTranslation() throws {
        try Self.withTrips(.memory) { (container) throws in
            let first = ModelContext(container)
            let second = ModelContext(container)
            let translated = container.predicateTranslations.fullTranslationCount
            for name in Self.names.prefix(3) {
                #expect(try first.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == name })).count == 1)
                #expect(try second.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == name })).count == 1)
            }
            #expect(container.predicateTranslations.fullTranslationCount == translated + 1)
            #expect(first.fetchPlanCount == 1)
            #expect(second.fetchPlanCount == 1)
        }
    }

    /// Descriptors that differ in what the plan keeps (the key path, the operator, the sorts,
    /// whether there is a predicate), fetched in turns in one context, each give what they give
    /// in a new context; the limit and offset change the request of one plan.
    @Test(arguments: [ModelBackend.memory, .sqlite])
    func descriptorsOfOtherShapesGetPlansOfTheirOwn(_ backend: ModelBackend) throws {
        try Self.withTrips(backend) { (container) throws in
            let context = ModelContext(container)
            func descriptors(_ round: Int) -> [FetchDescriptor<Trip>] {
                let name = Self.names[round]
                let destination = "D \(round + 1)"
                var limited = FetchDescriptor<Trip>(
                    predicate: #Predicate { $0.name >= name }, sortBy: [SortDescriptor(\.name, order: .reverse)])
                limited.fetchLimit = round % 4
                limited.fetchOffset = round % 3
                return [
                    // One expression type, read through two key paths.
                    FetchDescriptor(predicate: #Predicate { $0.name == name }),
                    FetchDescriptor(predicate: #Predicate { $0.destination == name }),
                    FetchDescriptor(predicate: #Predicate { $0.destination == destination }),
                    // One expression type, two operators, two sort orders.
                    FetchDescriptor(predicate: #Predicate { $0.name < name }, sortBy: [SortDescriptor(\.name)]),
                    FetchDescriptor(predicate: #Predicate { $0.name > name }, sortBy: [SortDescriptor(\.destination)]),
                    FetchDescriptor(
                        predicate: #Predicate { $0.name > name },
                        sortBy: [SortDescriptor(\.destination, order: .reverse)]),
                    limited,
                    FetchDescriptor(sortBy: [SortDescriptor(\.destination)]),
                    FetchDescriptor(sortBy: [SortDescriptor(\.name)]),
                ]
            }
            for round in 0..<12 {
                for descriptor in descriptors(round) {
                    let kept = try context.fetch(descriptor).map(\.name)
                    let freshContext = ModelContext(container)
                    let fresh = try freshContext.fetch(descriptor).map(\.name)
                    #expect(kept == fresh, "round \(round): \(String(describing: descriptor.predicate))")
                }
            }
            // `name ==` and `destination ==` share a plan's expression type but not its key.
            #expect(context.fetchPlanCount == descriptors(0).count - 1)
        }
    }

    @Test func aFetchCountAndIdentifiersUseTheFetchsPlan() throws {
        try Self.withTrips(.memory) { (container) throws in
            let context = ModelContext(container)
            for name in Self.names.prefix(5) {
                let descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.name <= name })
                let models = try context.fetch(descriptor)
                #expect(try context.fetchCount(descriptor) == models.count)
                #expect(try context.fetchIdentifiers(descriptor) == models.map(\.persistentModelID))
            }
            #expect(context.fetchPlanCount == 1)
        }
    }

    @Test func aDescriptorWhosePredicateChangesFetchesWithTheNewOne() throws {
        try Self.withTrips(.memory) { (container) throws in
            let context = ModelContext(container)
            var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Trip 1" })
            #expect(try context.fetch(descriptor).map(\.name) == ["Trip 1"])
            let name = "Trip 2"
            descriptor.predicate = #Predicate { $0.name == name }
            #expect(try context.fetch(descriptor).map(\.name) == ["Trip 2"])
            descriptor.predicate = #Predicate { $0.destination == name }
            #expect(try context.fetch(descriptor).isEmpty)
            descriptor.predicate = nil
            #expect(try context.fetch(descriptor).count == Self.names.count)
        }
    }

    @Test func anUntranslatablePredicateFailsEveryTime() throws {
        try Self.withTrips(.memory) { (container) throws in
            let context = ModelContext(container)
            let descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.isSelected == true })
            #expect(throws: StrataError.self) { try context.fetch(descriptor) }
            #expect(throws: StrataError.self) { try context.fetch(descriptor) }
            #expect(context.fetchPlanCount == 0)
        }
    }
}
