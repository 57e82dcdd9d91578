import Foundation
import StrataData
import StrataTestSupport
import Testing

/// A configuration that does not allow saving (`allowsSave: false`), given a store written with
/// an older version of the models: the container fails with `.modelMismatch` naming the store's
/// version, with a migration plan or without, and the store is left as it was, so that a
/// writable container migrates it afterwards.
@Suite struct ReadOnlyMigrationTests {
    @Test(arguments: ModelBackend.allCases)
    func aReadOnlyConfigurationRefusesAStoreThatNeedsMigrating(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            let configuration = backend.configuration(in: directory)
            do {
                let context = ModelContext(
                    try ModelContainer(
                        for: Schema(versionedSchema: RoutesSchemaV1.self), configurations: configuration))
                context.insert(RoutesSchemaV1.Route(origin: "OSL", destination: "TOS"))
                try context.save()
            }
            let readOnly = ModelConfiguration(url: configuration.url, allowsSave: false)

            let planned = try #require(throws: StrataError.self) {
                try ModelContainer(
                    for: RoutesSchemaV2.Route.self, migrationPlan: RoutesIndexPlan.self, configurations: readOnly)
            }
            #expect(planned.code == .modelMismatch)
            #expect(planned.message.contains("does not allow saving (allowsSave is false)"), "\(planned.message)")
            #expect(planned.location["version"] == "1.0.0")
            #expect(planned.location["migrationPlan"] == "RoutesIndexPlan")

            let unplanned = try #require(throws: StrataError.self) {
                try ModelContainer(for: RoutesSchemaV2.Route.self, configurations: readOnly)
            }
            #expect(unplanned.code == .modelMismatch)
            #expect(unplanned.message.contains("was written with model version"), "\(unplanned.message)")

            // Nothing changed: the store is still at version 1, and a writable container migrates it.
            let container = try ModelContainer(
                for: RoutesSchemaV2.Route.self, migrationPlan: RoutesIndexPlan.self, configurations: configuration)
            let context = ModelContext(container)
            let routes = try context.fetch(FetchDescriptor<RoutesSchemaV2.Route>())
            #expect(routes.map(\.destination) == ["TOS"])
        }
    }
}
