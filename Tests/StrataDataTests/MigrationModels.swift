import StrataData

// Three versions of a tour-planning model, declared as SwiftData programs declare them: each
// version an enum holding its models, the current names type aliases of the newest version.

typealias Tour = ToursSchemaV3.Tour
typealias Stop = ToursSchemaV3.Stop

enum ToursSchemaV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Tour.self, Stop.self] }

    @Model final class Tour {
        var name: String
        var title: String
        @Relationship(deleteRule: .cascade, inverse: \Stop.tour) var stops: [Stop] = []
        init(name: String, title: String) {
            self.name = name
            self.title = title
        }
    }

    @Model final class Stop {
        var place: String
        var tour: Tour?
        init(place: String) { self.place = place }
    }
}

/// Version 2: `title` renamed to `headline`, and `rating` added with an initial value.
enum ToursSchemaV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Tour.self, Stop.self] }

    @Model final class Tour {
        var name: String
        @Attribute(originalName: "title") var headline: String
        var rating: Int = 3
        @Relationship(deleteRule: .cascade, inverse: \Stop.tour) var stops: [Stop] = []
        init(name: String, headline: String) {
            self.name = name
            self.headline = headline
        }
    }

    @Model final class Stop {
        var place: String
        var tour: Tour?
        init(place: String) { self.place = place }
    }
}

/// Version 3: names become unique, and `summary` is added (filled by the custom stage).
enum ToursSchemaV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Tour.self, Stop.self] }

    @Model final class Tour {
        @Attribute(.unique) var name: String
        var headline: String
        var rating: Int = 3
        var summary: String = ""
        @Relationship(deleteRule: .cascade, inverse: \Stop.tour) var stops: [Stop] = []
        init(name: String, headline: String) {
            self.name = name
            self.headline = headline
        }
    }

    @Model final class Stop {
        var place: String
        var tour: Tour?
        init(place: String) { self.place = place }
    }
}

/// Version 1 to 2, inferred.
enum ToursLightweightPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ToursSchemaV1.self, ToursSchemaV2.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: ToursSchemaV1.self, toVersion: ToursSchemaV2.self)]
    }
}

/// Version 1 to 2 inferred, then 2 to 3 by a custom stage: `willMigrate` merges the tours
/// that share a name (the stops go to the first), `didMigrate` writes each summary.
enum ToursMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ToursSchemaV1.self, ToursSchemaV2.self, ToursSchemaV3.self] }
    static var stages: [MigrationStage] { [migrateV1toV2, migrateV2toV3] }

    static let migrateV1toV2 = MigrationStage.lightweight(
        fromVersion: ToursSchemaV1.self, toVersion: ToursSchemaV2.self)

    static let migrateV2toV3 = MigrationStage.custom(
        fromVersion: ToursSchemaV2.self, toVersion: ToursSchemaV3.self,
        willMigrate: { context in
            let tours = try context.fetch(
                FetchDescriptor<ToursSchemaV2.Tour>(sortBy: [SortDescriptor(\.headline)]))
            var kept: [String: ToursSchemaV2.Tour] = [:]
            for tour in tours {
                guard let first = kept[tour.name] else {
                    kept[tour.name] = tour
                    continue
                }
                first.stops += tour.stops
                context.delete(tour)
            }
            try context.save()
        },
        didMigrate: { context in
            // Appends, so that a second run would show.
            for tour in try context.fetch(FetchDescriptor<ToursSchemaV3.Tour>()) {
                tour.summary += "\(tour.headline), \(tour.stops.count) stops"
            }
        })
}

/// Version 2 to 3 inferred: the new unique constraint is checked, with no stage to prepare it.
enum ToursUncheckedPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ToursSchemaV2.self, ToursSchemaV3.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: ToursSchemaV2.self, toVersion: ToursSchemaV3.self)]
    }
}

/// What the failing stage throws.
struct SummaryUnavailable: Error {}

/// Version 2 to 3 whose `didMigrate` fails, after the change is made.
enum ToursFailingSummaryPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ToursSchemaV2.self, ToursSchemaV3.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: ToursSchemaV2.self, toVersion: ToursSchemaV3.self, willMigrate: nil,
                didMigrate: { _ in throw SummaryUnavailable() })
        ]
    }
}

/// Version 2 to 3 whose `didMigrate` writes each summary.
enum ToursSummaryPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ToursSchemaV2.self, ToursSchemaV3.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: ToursSchemaV2.self, toVersion: ToursSchemaV3.self, willMigrate: nil,
                didMigrate: { context in
                    for tour in try context.fetch(FetchDescriptor<ToursSchemaV3.Tour>()) {
                        tour.summary += tour.headline
                    }
                })
        ]
    }
}
