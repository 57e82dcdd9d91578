import Foundation
import StrataData
import StrataTestSupport
import Testing

/// Versions at 1.5.0 with the models of version 1: a store could not tell it from version 1.
enum ToursSchemaV1Copy: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 5, 0)
    static var models: [any PersistentModel.Type] { [ToursSchemaV1.Tour.self] }
}

/// A second schema at version 2.0.0.
enum ToursSchemaV2Again: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [ToursSchemaV3.Tour.self] }
}

/// Plans that cannot be followed.
enum BrokenPlan {
    /// No stage from 1 to 2.
    enum Gap: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [ToursSchemaV1.self, ToursSchemaV2.self, ToursSchemaV3.self] }
        static var stages: [MigrationStage] { [ToursMigrationPlan.migrateV2toV3] }
    }
    /// A stage from 1 straight to 3.
    enum Skip: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [ToursSchemaV1.self, ToursSchemaV2.self, ToursSchemaV3.self] }
        static var stages: [MigrationStage] {
            [.lightweight(fromVersion: ToursSchemaV1.self, toVersion: ToursSchemaV3.self)]
        }
    }
    /// A stage from a schema the plan does not list.
    enum Stranger: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [ToursSchemaV2.self, ToursSchemaV3.self] }
        static var stages: [MigrationStage] {
            [
                .lightweight(fromVersion: ToursSchemaV1.self, toVersion: ToursSchemaV2.self),
                ToursMigrationPlan.migrateV2toV3,
            ]
        }
    }
    /// Two schemas at 2.0.0.
    enum SameVersion: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] {
            [ToursSchemaV1.self, ToursSchemaV2.self, ToursSchemaV2Again.self]
        }
        static var stages: [MigrationStage] { [ToursMigrationPlan.migrateV1toV2] }
    }
    /// Two schemas with the same models.
    enum SameModels: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] {
            [ToursSchemaV1.self, ToursSchemaV1Copy.self, ToursSchemaV2.self]
        }
        static var stages: [MigrationStage] {
            [
                .lightweight(fromVersion: ToursSchemaV1.self, toVersion: ToursSchemaV1Copy.self),
                .lightweight(fromVersion: ToursSchemaV1Copy.self, toVersion: ToursSchemaV2.self),
            ]
        }
    }
    /// Without the container's models.
    enum Elsewhere: SchemaMigrationPlan {
        static var schemas: [any VersionedSchema.Type] { [ToursSchemaV1.self, ToursSchemaV2.self] }
        static var stages: [MigrationStage] { [ToursMigrationPlan.migrateV1toV2] }
    }
}

/// Versions, versioned schemas, and plans checked before any store is touched.
@Suite struct MigrationPlanTests {
    @Test func versionsOrderAndEncodeByTheirParts() throws {
        #expect(Schema.Version(1, 2, 3) < Schema.Version(1, 10, 0))
        #expect(Schema.Version(2, 0, 0) > Schema.Version(1, 99, 99))
        #expect(Schema.Version(1, 2, 3).description == "1.2.3")
        let data = try JSONEncoder().encode(Schema.Version(4, 5, 6))
        #expect(try JSONDecoder().decode(Schema.Version.self, from: data) == Schema.Version(4, 5, 6))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Int])
        #expect(object == ["major": 4, "minor": 5, "patch": 6])
    }

    @Test func modelsInsideAVersionedSchemaAreNamedAfterTheirClass() {
        let schema = Schema(versionedSchema: ToursSchemaV2.self)
        #expect(schema.version == Schema.Version(2, 0, 0))
        #expect(Set(schema.entities.map(\.name)) == ["Tour", "Stop"])
        #expect(schema.entitiesByName["Tour"]?.attributeNames == ["name", "headline", "rating"])
        #expect(Tour.self == ToursSchemaV3.Tour.self)
    }

    @Test(arguments: [
        (BrokenPlan.Gap.self as any SchemaMigrationPlan.Type, "1.0.0"),
        (BrokenPlan.Skip.self, "1.0.0"),
        (BrokenPlan.Stranger.self, "1.0.0"),
        (BrokenPlan.SameVersion.self, "2.0.0"),
        (BrokenPlan.SameModels.self, "1.5.0"),
    ])
    func aPlanThatCannotBeFollowedIsRefusedBeforeTheStoreIsTouched(
        _ plan: any SchemaMigrationPlan.Type, version: String
    ) throws {
        try withTemporaryDirectory { directory in
            let configuration = ModelBackend.xml.configuration(in: directory)
            do {
                let container = try ModelContainer(
                    for: Schema(versionedSchema: ToursSchemaV1.self), configurations: configuration)
                let context = ModelContext(container)
                context.insert(ToursSchemaV1.Tour(name: "Lofoten", title: "Arctic islands"))
                try context.save()
            }
            let before = try Data(contentsOf: configuration.url)
            let error = try #require(throws: StrataError.self) {
                _ = try ModelContainer(for: Tour.self, migrationPlan: plan, configurations: configuration)
            }
            #expect(error.code == .invalidMigrationPlan)
            #expect(error.location["version"] == version)
            #expect(error.message.contains(version))
            #expect(error.location["migrationPlan"] == "\(plan)")
            #expect(try Data(contentsOf: configuration.url) == before)
        }
    }

    @Test func aContainerWhoseModelsAreNoneOfThePlansSchemasIsRefused() throws {
        let error = try #require(throws: StrataError.self) {
            _ = try ModelContainer(
                for: Tour.self, migrationPlan: BrokenPlan.Elsewhere.self,
                configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
        #expect(error.code == .invalidMigrationPlan)
        #expect(error.message.contains("Tour"))
    }

    @Test func aNewStoreIsMadeAtTheContainersVersion() throws {
        let container = try ModelContainer(
            for: Tour.self, migrationPlan: ToursMigrationPlan.self,
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(container.schema.version == Schema.Version(3, 0, 0))
        #expect(container.migrationPlan.map(ObjectIdentifier.init) == ObjectIdentifier(ToursMigrationPlan.self))
        let context = ModelContext(container)
        context.insert(Tour(name: "Lofoten", headline: "Arctic islands"))
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Tour>()).map(\.rating) == [3])
    }
}
