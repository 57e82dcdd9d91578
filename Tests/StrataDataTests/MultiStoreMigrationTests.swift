import Foundation
import StrataData
import StrataTestSupport
import Testing

/// A model that does not change between versions, kept in a store of its own.
enum NotesSchema {
    @Model final class Note {
        var text: String
        init(text: String) { self.text = text }
    }
}

/// Tours version 1 and notes.
enum ToursAndNotesV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [ToursSchemaV1.Tour.self, NotesSchema.Note.self] }
}

/// Tours version 2 and notes.
enum ToursAndNotesV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [ToursSchemaV2.Tour.self, NotesSchema.Note.self] }
}

/// Version 1 to 2 of tours and notes, inferred.
enum ToursAndNotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ToursAndNotesV1.self, ToursAndNotesV2.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: ToursAndNotesV1.self, toVersion: ToursAndNotesV2.self)]
    }
}

/// A container of several configurations, each store migrated.
@Suite struct MultiStoreMigrationTests {
    @Test(arguments: ModelBackend.allCases)
    func everyConfigurationsStoreIsMigrated(_ backend: ModelBackend) throws {
        try withTemporaryDirectory { directory in
            func configurations(tours: any PersistentModel.Type) -> [ModelConfiguration] {
                [
                    ModelConfiguration(
                        "tours", schema: Schema([tours]), url: backend.configuration(in: directory, name: "tours").url),
                    ModelConfiguration(
                        "notes", schema: Schema([NotesSchema.Note.self]),
                        url: backend.configuration(in: directory, name: "notes").url),
                ]
            }
            do {
                let container = try ModelContainer(
                    for: Schema(versionedSchema: ToursAndNotesV1.self),
                    configurations: configurations(tours: ToursSchemaV1.Tour.self))
                let context = ModelContext(container)
                context.insert(ToursSchemaV1.Tour(name: "Lofoten", title: "Arctic islands"))
                context.insert(NotesSchema.Note(text: "pack boots"))
                try context.save()
            }
            let container = try ModelContainer(
                for: Schema(versionedSchema: ToursAndNotesV2.self), migrationPlan: ToursAndNotesPlan.self,
                configurations: configurations(tours: ToursSchemaV2.Tour.self))
            let context = ModelContext(container)
            #expect(try context.fetch(FetchDescriptor<ToursSchemaV2.Tour>()).map(\.headline) == ["Arctic islands"])
            #expect(try context.fetch(FetchDescriptor<NotesSchema.Note>()).map(\.text) == ["pack boots"])
        }
    }
}
