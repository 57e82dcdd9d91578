import Foundation
import StrataData
import StrataTestSupport
import Testing

/// Stores written with an older `VersionedSchema`, opened by a container with a migration plan,
/// on every backend.
@Suite struct SchemaMigrationTests {
    /// Writes a version-1 store: three tours, two of them named "Lofoten", and three stops.
    private func writeVersion1(_ configuration: ModelConfiguration) throws {
        let container = try ModelContainer(
            for: Schema(versionedSchema: ToursSchemaV1.self), configurations: configuration)
        let context = ModelContext(container)
        let arctic = ToursSchemaV1.Tour(name: "Lofoten", title: "Arctic islands")
        arctic.stops = [ToursSchemaV1.Stop(place: "Reine"), ToursSchemaV1.Stop(place: "Å")]
        let again = ToursSchemaV1.Tour(name: "Lofoten", title: "Arctic summer")
        again.stops = [ToursSchemaV1.Stop(place: "Svolvær")]
        context.insert(arctic)
        context.insert(again)
        context.insert(ToursSchemaV1.Tour(name: "Senja", title: "Fjords"))
        try context.save()
    }

    @Test(arguments: ModelBackend.allCases)
    func aLightweightStageRenamesAndAddsAttributes(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let configuration = backend.configuration(in: directory)
            try writeVersion1(configuration)
            let container = try ModelContainer(
                for: ToursSchemaV2.Tour.self, migrationPlan: ToursLightweightPlan.self, configurations: configuration)
            #expect(container.schema.version == Schema.Version(2, 0, 0))
            let context = ModelContext(container)
            let tours = try context.fetch(
                FetchDescriptor<ToursSchemaV2.Tour>(sortBy: [SortDescriptor(\.headline)]))
            #expect(tours.map(\.headline) == ["Arctic islands", "Arctic summer", "Fjords"])
            #expect(tours.map(\.name) == ["Lofoten", "Lofoten", "Senja"])
            #expect(tours.map(\.rating) == [3, 3, 3])
            #expect(tours.map { Set($0.stops.map(\.place)) } == [["Reine", "Å"], ["Svolvær"], []])
            #expect(try context.fetchCount(FetchDescriptor<ToursSchemaV2.Stop>()) == 3)
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func aCustomStagePreparesAndCompletesTheChange(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let configuration = backend.configuration(in: directory)
            try writeVersion1(configuration)
            let container = try ModelContainer(
                for: Tour.self, migrationPlan: ToursMigrationPlan.self, configurations: configuration)
            let context = ModelContext(container)
            let tours = try context.fetch(FetchDescriptor<Tour>(sortBy: [SortDescriptor(\.name)]))
            #expect(tours.map(\.name) == ["Lofoten", "Senja"])
            #expect(tours.map(\.summary) == ["Arctic islands, 3 stops", "Fjords, 0 stops"])
            #expect(Set(tours[0].stops.map(\.place)) == ["Reine", "Å", "Svolvær"])
            #expect(try context.fetchCount(FetchDescriptor<Stop>()) == 3)
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func aMigratedStoreReopensWithoutMigratingAgain(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let configuration = backend.configuration(in: directory)
            try writeVersion1(configuration)
            do {
                let container = try ModelContainer(
                    for: Tour.self, migrationPlan: ToursMigrationPlan.self, configurations: configuration)
                let context = ModelContext(container)
                context.insert(Tour(name: "Tromsø", headline: "Northern lights"))
                try context.save()
            }
            let before = backend == .xml ? try Data(contentsOf: configuration.url) : nil
            let container = try ModelContainer(
                for: Tour.self, migrationPlan: ToursMigrationPlan.self, configurations: configuration)
            let context = ModelContext(container)
            let tours = try context.fetch(FetchDescriptor<Tour>(sortBy: [SortDescriptor(\.name)]))
            #expect(tours.map(\.name) == ["Lofoten", "Senja", "Tromsø"])
            #expect(tours.map(\.summary) == ["Arctic islands, 3 stops", "Fjords, 0 stops", ""])
            if let before { #expect(try Data(contentsOf: configuration.url) == before) }
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func aStoreAtTheCurrentVersionOpensUntouched(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let configuration = backend.configuration(in: directory)
            do {
                let container = try ModelContainer(
                    for: Tour.self, migrationPlan: ToursMigrationPlan.self, configurations: configuration)
                let context = ModelContext(container)
                context.insert(Tour(name: "Lofoten", headline: "Arctic islands"))
                try context.save()
            }
            let before = backend == .xml ? try Data(contentsOf: configuration.url) : nil
            let container = try ModelContainer(
                for: Schema(versionedSchema: ToursSchemaV3.self), migrationPlan: ToursMigrationPlan.self,
                configurations: configuration)
            let context = ModelContext(container)
            let tours = try context.fetch(FetchDescriptor<Tour>())
            #expect(tours.map(\.summary) == [""])
            if let before { #expect(try Data(contentsOf: configuration.url) == before) }
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func aStoreAtAVersionThePlanDoesNotListIsRefusedAndKept(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let configuration = backend.configuration(in: directory)
            do {
                let container = try ModelContainer(
                    for: Schema(versionedSchema: ToursSchemaV3.self), configurations: configuration)
                let context = ModelContext(container)
                context.insert(Tour(name: "Senja", headline: "Fjords"))
                try context.save()
            }
            let error = try #require(throws: StrataError.self) {
                _ = try ModelContainer(
                    for: ToursSchemaV2.Tour.self, migrationPlan: ToursLightweightPlan.self,
                    configurations: configuration)
            }
            #expect(error.code == .modelMismatch)
            #expect(error.location["version"] == "3.0.0")
            #expect(error.message.contains("3.0.0"))
            let container = try ModelContainer(
                for: Schema(versionedSchema: ToursSchemaV3.self), configurations: configuration)
            let context = ModelContext(container)
            #expect(try context.fetch(FetchDescriptor<Tour>()).map(\.name) == ["Senja"])
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func aFailedStageLeavesTheStoreAtTheOlderVersion(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let configuration = backend.configuration(in: directory)
            do {
                let container = try ModelContainer(
                    for: Schema(versionedSchema: ToursSchemaV2.self), configurations: configuration)
                let context = ModelContext(container)
                context.insert(ToursSchemaV2.Tour(name: "Lofoten", headline: "Arctic islands"))
                context.insert(ToursSchemaV2.Tour(name: "Lofoten", headline: "Arctic summer"))
                try context.save()
            }
            let error = try #require(throws: StrataError.self) {
                _ = try ModelContainer(
                    for: Tour.self, migrationPlan: ToursUncheckedPlan.self, configurations: configuration)
            }
            #expect(error.code == .uniqueConstraint)
            let container = try ModelContainer(
                for: Schema(versionedSchema: ToursSchemaV2.self), configurations: configuration)
            let context = ModelContext(container)
            let tours = try context.fetch(FetchDescriptor<ToursSchemaV2.Tour>(sortBy: [SortDescriptor(\.headline)]))
            #expect(tours.map(\.headline) == ["Arctic islands", "Arctic summer"])
        }
    }

    @Test(arguments: ModelBackend.allCases)
    func aDidMigrateThatFailedRunsAgainAtTheNextOpen(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let configuration = backend.configuration(in: directory)
            do {
                let container = try ModelContainer(
                    for: Schema(versionedSchema: ToursSchemaV2.self), configurations: configuration)
                let context = ModelContext(container)
                context.insert(ToursSchemaV2.Tour(name: "Lofoten", headline: "Arctic islands"))
                try context.save()
            }
            #expect(throws: SummaryUnavailable.self) {
                _ = try ModelContainer(
                    for: Tour.self, migrationPlan: ToursFailingSummaryPlan.self, configurations: configuration)
            }
            do {
                let container = try ModelContainer(
                    for: Tour.self, migrationPlan: ToursSummaryPlan.self, configurations: configuration)
                let context = ModelContext(container)
                #expect(try context.fetch(FetchDescriptor<Tour>()).map(\.summary) == ["Arctic islands"])
            }
            // Done now: the failing stage does not run again.
            let container = try ModelContainer(
                for: Tour.self, migrationPlan: ToursFailingSummaryPlan.self, configurations: configuration)
            let context = ModelContext(container)
            #expect(try context.fetch(FetchDescriptor<Tour>()).map(\.summary) == ["Arctic islands"])
        }
    }
}
