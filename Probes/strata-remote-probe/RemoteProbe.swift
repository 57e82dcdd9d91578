// strata-remote-probe: one of several processes writing one store, for the remote-change tests
// of StrataTests.
//
//   strata-remote-probe URL NAME COUNT TOTAL GOFILE [PAUSE]
//       Loads a container on the store at URL (three tiers, the view context merging remote
//       changes), prints "ready", waits until the file GOFILE exists, then saves COUNT notes
//       (text "NAME i"), one save each, through background contexts, pausing PAUSE
//       microseconds after each (none by default). It then waits (at most
//       60 s) until its view context has merged the notes of the other processes, TOTAL in all
//       with its own, and prints one line:
//
//       result own=O merged=M duplicates=D foreign=F fetched=N missing=X
//
//       O: notes it saved; M: distinct notes of others its view context merged (inserted IDs
//       of its objects-did-change notifications after remote merges); D: notes merged more
//       than once; F: merged notes that are its own; N: the notes a fetch of its view context
//       sees; X: merged notes the view context cannot load.
//
//       Then one more line, the time from each other process's commit (its history timestamp)
//       to the view context's objects-did-change notification that carried the note, in
//       milliseconds, over the L notes measured:
//
//       latency count=L p50=A p99=B max=C

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

/// The commit times of the notes other processes inserted, heard of but not yet merged, and the
/// latencies from commit to merge measured so far, in milliseconds.
final class Latencies: @unchecked Sendable {
    private let lock = NSLock()
    private var committed: [ObjectID: Double] = [:]
    private var measured: [Double] = []

    func heard(_ change: RemoteChange) {
        lock.lock()
        defer { lock.unlock() }
        for transaction in change.transactions {
            for change in transaction.changes where change.kind == .insert {
                committed[change.objectID] = transaction.timestamp.timeIntervalSince1970
            }
        }
    }

    func merged(_ inserted: Set<ObjectID>) {
        let now = Date().timeIntervalSince1970
        lock.lock()
        defer { lock.unlock() }
        for id in inserted {
            if let commit = committed.removeValue(forKey: id) { measured.append((now - commit) * 1000) }
        }
    }

    /// `count=L p50=A p99=B max=C`.
    var summary: String {
        lock.lock()
        let sorted = measured.sorted()
        lock.unlock()
        func at(_ fraction: Double) -> String {
            guard !sorted.isEmpty else { return "0" }
            return String(format: "%.2f", sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))])
        }
        return "count=\(sorted.count) p50=\(at(0.5)) p99=\(at(0.99)) max=\(String(format: "%.2f", sorted.last ?? 0))"
    }
}

@main
struct RemoteProbe {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 6 || arguments.count == 7, let count = Int(arguments[3]),
            let total = Int(arguments[4]), let pause = UInt32(arguments.count == 7 ? arguments[6] : "0")
        else {
            FileHandle.standardError.write(
                Data("usage: strata-remote-probe URL NAME COUNT TOTAL GOFILE [PAUSE]\n".utf8))
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
        let latencies = Latencies()
        let heard = NotificationCenter.default.addObserver(
            forName: PersistentContainer.remoteChangeNotification, object: container, queue: nil
        ) { note in
            if let change = note.userInfo?[PersistentContainer.remoteChangeKey] as? RemoteChange {
                latencies.heard(change)
            }
        }
        let observer = NotificationCenter.default.addObserver(
            forName: ObjectContext.objectsDidChangeNotification, object: view, queue: nil
        ) { note in
            guard let changes = note.userInfo?[ObjectContext.changesKey] as? ContextChanges else { return }
            latencies.merged(changes.inserted)
            merged.add(changes.inserted)
        }
        defer {
            NotificationCenter.default.removeObserver(observer)
            NotificationCenter.default.removeObserver(heard)
        }
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
            if pause > 0 { usleep(pause) }
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
        say("latency \(latencies.summary)")
    }

    /// Writes `line` to standard output at once (unbuffered: the test reads it as it comes).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
