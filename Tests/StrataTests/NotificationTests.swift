import Foundation
import Strata
import Testing

@Suite struct NotificationTests {
    /// Records the changes of notification `name` from `context`.
    private func observe(_ name: Notification.Name, of context: ObjectContext, into log: Collector<String>)
        -> any NSObjectProtocol
    {
        NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { note in
            let changes = note.userInfo?[ObjectContext.changesKey] as? ContextChanges
            log.append(
                "\(name.rawValue) \(changes.map { "\($0.inserted.count)/\($0.updated.count)/\($0.deleted.count)" } ?? "no changes")"
            )
        }
    }

    @Test func saveIsAnnouncedBeforeAndAfterWithInsertedUpdatedAndDeletedIDs() throws {
        let context = ObjectContext(coordinator: try makeTeamCoordinator(), name: "saver")
        let saved = Collector<ContextChanges>()
        let log = Collector<String>()
        let tokens = [ObjectContext.willSaveNotification, ObjectContext.didSaveNotification].map {
            observe($0, of: context, into: log)
        }
        let didSave = NotificationCenter.default.addObserver(
            forName: ObjectContext.didSaveNotification, object: context, queue: nil
        ) { note in
            if let changes = note.userInfo?[ObjectContext.changesKey] as? ContextChanges { saved.append(changes) }
        }
        defer { for token in tokens + [didSave] { NotificationCenter.default.removeObserver(token) } }

        let team = context.insert(Team.self)
        team.name = "Bulls"
        let player = context.insert(Player.self)
        player.name = "Michael"
        player.team = team
        try context.save()
        team.name = "Chicago Bulls"
        context.delete(player)
        try context.save()

        #expect(
            log.values == [
                "StrataObjectContextWillSave 2/0/0", "StrataObjectContextDidSave 2/0/0",
                "StrataObjectContextWillSave 0/1/1", "StrataObjectContextDidSave 0/1/1",
            ])
        #expect(saved.values.first?.inserted == [team.objectID, player.objectID].reduce(into: Set()) { $0.insert($1) })
        #expect(saved.values.first?.inserted.allSatisfy { !$0.isTemporary } == true, "did-save lists permanent IDs")
        #expect(saved.values.last == ContextChanges(updated: [team.objectID], deleted: [player.objectID]))
    }

    /// A save reuses the sets of the notification it just posted when nothing changed since;
    /// observers that delete one new object and insert another (same count) during the
    /// objects-did-change or will-save notification must still be reported exactly.
    @Test func observersSwappingNewObjectsDuringASaveAreReportedExactly() throws {
        let context = ObjectContext(coordinator: try makeTeamCoordinator(), name: "swapper")
        let reports = Collector<String>()
        let swaps = Locked<[Notification.Name]>([
            ObjectContext.objectsDidChangeNotification, ObjectContext.willSaveNotification,
        ])
        @Sendable func report(_ note: Notification) {
            let changes = note.userInfo?[ObjectContext.changesKey] as? ContextChanges
            let objects = note.userInfo?[ObjectContext.insertedObjectsKey] as? Set<ManagedObject> ?? []
            let names = objects.compactMap { ($0 as? Team)?.name }.sorted().joined(separator: ",")
            let consistent = Set(objects.map(\.objectID)) == changes?.inserted
            reports.append(
                "\(note.name.rawValue.replacingOccurrences(of: "StrataObjectContext", with: "")) \(names)\(consistent ? "" : " (IDs differ from objects)")"
            )
        }
        let names = [
            ObjectContext.objectsDidChangeNotification, ObjectContext.willSaveNotification,
            ObjectContext.didSaveNotification,
        ]
        let tokens = names.map { name in
            NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { note in
                report(note)
                // Once per notification name: delete the first new team (by name) and insert another.
                guard swaps.withLock({ list in list.first == name ? list.removeFirst() : nil }) != nil,
                    let changes = note.userInfo?[ObjectContext.changesKey] as? ContextChanges
                else { return }
                let victim = changes.inserted.compactMap { context.registeredObject(for: $0) as? Team }.min {
                    $0.name < $1.name
                }
                if let victim { context.delete(victim) }
                let late = context.insert(Team.self)
                late.name = "late after \(name.rawValue.replacingOccurrences(of: "StrataObjectContext", with: ""))"
            }
        }
        defer { for token in tokens { NotificationCenter.default.removeObserver(token) } }

        for name in ["a", "b", "c"] { context.insert(Team.self).name = name }
        try context.save()
        #expect(
            reports.values == [
                "ObjectsDidChange a,b,c",
                "WillSave b,c,late after ObjectsDidChange",
                "DidSave c,late after ObjectsDidChange,late after WillSave",
            ])
        let reader = ObjectContext(coordinator: context.coordinator)
        let stored = try reader.fetch(Team.self).map(\.name).sorted()
        #expect(stored == ["c", "late after ObjectsDidChange", "late after WillSave"])
    }

    @Test func aFailedSaveIsNotAnnouncedAsSaved() throws {
        let context = ObjectContext(coordinator: try makeTeamCoordinator(), name: "failing")
        let log = Collector<String>()
        let token = observe(ObjectContext.didSaveNotification, of: context, into: log)
        defer { NotificationCenter.default.removeObserver(token) }
        _ = context.insert(Team.self) // no name
        #expect(throws: StrataError.self) { try context.save() }
        #expect(log.values.isEmpty)
    }

    @Test func objectsDidChangeIsPostedWhenAPerformBlockEnds() throws {
        let coordinator = try makeTeamCoordinator()
        let context = ObjectContext(coordinator: coordinator, name: "changing")
        let team = context.insert(Team.self)
        team.name = "Magic"
        try context.save()
        let teamID = team.objectID
        let changes = Collector<ContextChanges>()
        let token = NotificationCenter.default.addObserver(
            forName: ObjectContext.objectsDidChangeNotification, object: context, queue: nil
        ) { note in
            if let c = note.userInfo?[ObjectContext.changesKey] as? ContextChanges { changes.append(c) }
        }
        defer { NotificationCenter.default.removeObserver(token) }

        let insertedID = context.performAndWait { () -> ObjectID in
            let player = context.insert(Player.self)
            player.name = "Shaq"
            let gone = context.insert(Player.self) // inserted and deleted before the post: not listed
            context.delete(gone)
            (context.object(with: teamID) as? Team)?.name = "Orlando Magic"
            #expect(changes.values.isEmpty, "nothing is posted before the block ends")
            return player.objectID
        }
        #expect(changes.values == [ContextChanges(inserted: [insertedID], updated: [teamID])])

        context.delete(team)
        context.processPendingChanges()
        #expect(changes.values.last == ContextChanges(deleted: [teamID]))
        context.processPendingChanges()
        #expect(changes.values.count == 2, "nothing new, nothing posted")
    }

    @Test func sameQueueObserversGetTheObjectsToo() throws {
        let context = ObjectContext(coordinator: try makeTeamCoordinator(), name: "objects")
        let team = context.insert(Team.self)
        team.name = "Jazz"
        try context.save()
        let log = Collector<String>()
        // The observer runs synchronously where the context posts: on this thread.
        nonisolated(unsafe) let expected = team
        let token = NotificationCenter.default.addObserver(
            forName: ObjectContext.objectsDidChangeNotification, object: context, queue: nil
        ) { note in
            let updated = note.userInfo?[ObjectContext.updatedObjectsKey] as? Set<ManagedObject> ?? []
            let deleted = note.userInfo?[ObjectContext.deletedObjectsKey] as? Set<ManagedObject> ?? []
            log.append("updated \(updated.count) same \(updated.first === expected) deleted \(deleted.count)")
        }
        defer { NotificationCenter.default.removeObserver(token) }
        team.name = "Utah Jazz"
        context.processPendingChanges()
        #expect(log.values == ["updated 1 same true deleted 0"])
    }

    @Test func changesStreamYieldsEachSaveInOrder() async throws {
        let context = ObjectContext(coordinator: try makeTeamCoordinator(), name: "streaming")
        var saves = context.changes().makeAsyncIterator()
        let ids = try await context.perform { () throws -> [ObjectID] in
            let team = context.insert(Team.self)
            team.name = "Nets"
            try context.save()
            team.name = "Brooklyn Nets"
            try context.save()
            return [team.objectID]
        }
        #expect(await saves.next() == ContextChanges(inserted: Set(ids)))
        #expect(await saves.next() == ContextChanges(updated: Set(ids)))
    }
}
