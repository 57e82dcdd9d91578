// strata-remote-probe: one of several processes writing one store, for the remote-change tests
// of StrataTests.
//
//   strata-remote-probe URL NAME COUNT TOTAL GOFILE
//       Loads a container on the store at URL (three tiers, the view context merging remote
//       changes), prints "ready", waits until the file GOFILE exists, then saves COUNT notes
//       (text "NAME i"), one save each, through background contexts. It then waits (at most
//       60 s) until its view context has merged the notes of the other processes, TOTAL in all
//       with its own, and prints one line:
//
//       result own=O merged=M duplicates=D foreign=F fetched=N missing=X
//
//       O: notes it saved; M: distinct notes of others its view context merged (inserted IDs
//       of its objects-did-change notifications after remote merges); D: notes merged more
//       than once; F: merged notes that are its own; N: the notes a fetch of its view context
//       sees; X: merged notes the view context cannot load.

import Foundation
import Strata

/// What the view context merged, collected from its notifications.
final class Merged: @unchecked Sendable {
    private let lock = NSLock()
    private var ids: Set<ObjectID> = []
    private var duplicates = 0

    func add(_ inserted: Set<ObjectID>) {
        lock.lock()
        defer { lock.unlock() }
        for id in inserted where !ids.insert(id).inserted { duplicates += 1 }
    }

    var snapshot: (ids: Set<ObjectID>, duplicates: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (ids, duplicates)
    }
}

@main
struct RemoteProbe {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 6, let count = Int(arguments[3]), let total = Int(arguments[4]) else {
            FileHandle.standardError.write(Data("usage: strata-remote-probe URL NAME COUNT TOTAL GOFILE\n".utf8))
            exit(2)
        }
        let name = arguments[2]
        let goFile = arguments[5]
        let model = try Model(
            versionIdentifier: "remote-probe",
            entities: [Entity("Note", attributes: [Attribute("text", .string)])])
        let description = StoreDescription(url: try StoreURL.parse(arguments[1]))
        let container = PersistentContainer(
            name: "remote-probe", model: model, storeDescriptions: [description], environment: [:])
        try await container.loadPersistentStores()
        let view = container.viewContext
        view.automaticallyMergesRemoteChanges = true
        let merged = Merged()
        let observer = NotificationCenter.default.addObserver(
            forName: ObjectContext.objectsDidChangeNotification, object: view, queue: nil
        ) { note in
            guard let changes = note.userInfo?[ObjectContext.changesKey] as? ContextChanges else { return }
            merged.add(changes.inserted)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        say("ready")
        while !FileManager.default.fileExists(atPath: goFile) { try await Task.sleep(for: .milliseconds(2)) }

        var own: Set<ObjectID> = []
        for index in 0..<count {
            let id = try await container.performBackgroundTask { context -> ObjectID in
                context.transactionAuthor = name
                let note = try context.insert("Note")
                note["text"] = .string("\(name) \(index)")
                try context.obtainPermanentIDs(for: [note])
                try context.save()
                return note.objectID
            }
            own.insert(id)
        }
        // The view context saw its own notes through its parent; remote ones arrive by merging.
        let deadline = ContinuousClock.now + .seconds(60)
        while merged.snapshot.ids.count < total - count && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let seen = merged.snapshot
        let remote = seen.ids.subtracting(own)
        let (fetched, missing) = try await view.perform { () throws -> (Int, Int) in
            let fetched = try view.count(FetchRequest(entityName: "Note"))
            var missing = 0
            for id in remote where (try? view.existingObject(with: id)) == nil { missing += 1 }
            return (fetched, missing)
        }
        say(
            "result own=\(own.count) merged=\(remote.count) duplicates=\(seen.duplicates) foreign=\(seen.ids.count - remote.count) fetched=\(fetched) missing=\(missing)"
        )
    }

    /// Writes `line` to standard output at once (unbuffered: the test reads it as it comes).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
