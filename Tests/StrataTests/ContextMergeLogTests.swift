import Foundation
import Logging
import Strata
import StrataTestSupport
import Testing

/// Contexts log each merge of another context's save at `debug` and each conflict a save meets at
/// `notice`, under `strata.context`: the context, the entities, the objects, the merge policy;
/// never a value.
@Suite struct ContextMergeLogTests {
    /// A coordinator with a player saved by `writer`, and `reader` holding it loaded.
    private func contexts(_ name: String) throws -> (writer: ObjectContext, reader: ObjectContext, player: ObjectID) {
        let coordinator = try makeTeamCoordinator()
        let writer = ObjectContext(coordinator: coordinator, name: name + "-writer")
        let reader = ObjectContext(coordinator: coordinator, name: name + "-reader")
        let player = writer.insert(Player.self)
        player.name = "s3cret-player"
        player.age = 20
        try writer.save()
        return (writer, reader, player.objectID)
    }

    @Test func aMergeIsLoggedAtDebug() throws {
        let name = "merge-\(UUID().uuidString)"
        let (writer, reader, id) = try contexts(name)
        let loaded = try #require(try reader.existingObject(with: id) as? Player)
        #expect(loaded.age == 20)
        let records = try CapturingLogHandler.capture(at: .debug, mentioning: name + "-reader") {
            let changes = Locked<ContextChanges?>(nil)
            let observer = NotificationCenter.default.addObserver(
                forName: ObjectContext.didSaveNotification, object: writer, queue: nil
            ) { note in
                changes.withLock { $0 = note.userInfo?[ObjectContext.changesKey] as? ContextChanges }
            }
            defer { NotificationCenter.default.removeObserver(observer) }
            let player = try #require(try writer.existingObject(with: id) as? Player)
            player.age = 21
            try writer.save()
            try reader.mergeChanges(fromContextDidSave: try #require(changes.withLock { $0 }))
        }.labelled("strata.context")
        try #require(records.count == 1, "\(records)")
        #expect(records[0].level == .debug)
        #expect(records[0].metadata["entities"] == "Player")
        #expect(records[0].metadata["objects"] == "1")
        #expect(records[0].metadata["refreshed"] == "1")
        #expect(records[0].metadata["mergePolicy"] == "error")
        #expect(records.neverMention("s3cret"))
    }

    @Test(arguments: [MergePolicy.error, .mergeByPropertyObjectTrump])
    func aConflictIsLoggedAtDebug(_ policy: MergePolicy) throws {
        let name = "conflict-\(UUID().uuidString)"
        let (writer, reader, id) = try contexts(name)
        reader.mergePolicy = policy
        let mine = try #require(try reader.existingObject(with: id) as? Player)
        let records = try CapturingLogHandler.capture(at: .debug, mentioning: name + "-reader") {
            let theirs = try #require(try writer.existingObject(with: id) as? Player)
            theirs.age = 30
            try writer.save()
            mine.age = 40
            if policy == .error {
                #expect(throws: StrataError.self) { try reader.save() }
            } else {
                try reader.save()
            }
        }.labelled("strata.context").filter { $0.message.contains("conflict") }
        try #require(records.count == 1, "\(records)")
        #expect(records[0].level == .debug)
        #expect(records[0].metadata["entities"] == "Player")
        #expect(records[0].metadata["objects"] == "1")
        #expect(records[0].metadata["mergePolicy"] == policy.description)
        #expect(records[0].message.contains(policy == .error ? "the save fails" : "resolving them"))
        #expect(records.neverMention("s3cret"))
    }
}
