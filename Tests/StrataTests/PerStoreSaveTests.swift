import Foundation
import Strata
import StrataTestSupport
import Testing

/// A store whose first save, once armed, waits inside `save` until released: a slow store.
private final class GatedStore: WrappingStore {
    let inner: any PersistentStore
    /// Signalled when the held save is inside `save`.
    let entered = DispatchSemaphore(value: 0)
    /// Lets the held save go on.
    let release = DispatchSemaphore(value: 0)
    private let armed = Locked(false)

    init(_ inner: any PersistentStore) { self.inner = inner }

    /// Holds the next save.
    func arm() { armed.withLock { $0 = true } }

    func fetch(_ request: FetchRequest) throws -> FetchResult { try inner.fetch(request) }
    @discardableResult func save(_ request: SaveRequest) throws -> SaveResult {
        let hold = armed.withLock { armed in
            defer { armed = false }
            return armed
        }
        if hold {
            entered.signal()
            release.wait()
        }
        return try inner.save(request)
    }
}

/// Saves to one store of a coordinator go one at a time; saves to different stores do not wait
/// for each other; a save that spans stores still saves each part atomically.
@Suite struct PerStoreSaveTests {
    static let model = try! Model(
        versionIdentifier: "per-store",
        entities: [
            Entity("Note", attributes: [Attribute("text", .string)]),
            Entity("Tag", attributes: [Attribute("label", .string)]),
        ], configurations: ["Notes": ["Note"], "Tags": ["Tag"]])

    private struct Stores {
        let coordinator: StoreCoordinator
        let notes: GatedStore
        let tags: any PersistentStore
    }

    private func stores() throws -> Stores {
        let coordinator = StoreCoordinator(model: Self.model)
        let notes = GatedStore(try BuiltInBackends.registry.open("memory:", model: Self.model))
        let tags = try BuiltInBackends.registry.open("memory:", model: Self.model)
        try coordinator.addStore(notes, configuration: "Notes")
        try coordinator.addStore(tags, configuration: "Tags")
        return Stores(coordinator: coordinator, notes: notes, tags: tags)
    }

    private func insert(_ entityName: String, _ value: String, in coordinator: StoreCoordinator) throws -> Snapshot {
        let id = try coordinator.obtainPermanentIDs(for: entityName, count: 1)[0]
        let entity = Self.model.entity(named: entityName)!
        var snapshot = Snapshot(objectID: id, entity: entity)
        snapshot.attributes[0] = .string(value)
        return snapshot
    }

    private func count(_ entityName: String, in coordinator: StoreCoordinator) throws -> Int {
        try coordinator.fetch(FetchRequest(entityName: entityName, resultType: .count)).count()
    }

    /// Waits for `semaphore` on a thread of its own: the test's thread, one of the few shared by
    /// every test, stays free meanwhile.
    private func wait(for semaphore: DispatchSemaphore, seconds: Double) async -> DispatchTimeoutResult {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: semaphore.wait(timeout: .now() + seconds)) }
        }
    }

    /// Runs `body` on a thread of its own; the returned semaphore is signalled when it ends.
    private func inBackground(_ body: @escaping @Sendable () throws -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do { try body() } catch { Issue.record("unexpected error: \(error)") }
            done.signal()
        }
        return done
    }

    @Test func aSaveToOneStoreDoesNotWaitForASlowSaveToAnother() async throws {
        let s = try stores()
        let note = try insert("Note", "slow", in: s.coordinator)
        let tag = try insert("Tag", "quick", in: s.coordinator)
        let secondNote = try insert("Note", "queued", in: s.coordinator)
        s.notes.arm()
        let slow = inBackground { [coordinator = s.coordinator] in try coordinator.save(SaveRequest(inserts: [note])) }
        #expect(await wait(for: s.notes.entered, seconds: 30) == .success, "the save to the notes store never started")

        let quick = inBackground { [coordinator = s.coordinator] in try coordinator.save(SaveRequest(inserts: [tag])) }
        let queued = inBackground { [coordinator = s.coordinator] in
            try coordinator.save(SaveRequest(inserts: [secondNote]))
        }
        let quickResult = await wait(for: quick, seconds: 30)
        #expect(quickResult == .success, "a save to the tags store waited for the notes store")
        #expect(try count("Tag", in: s.coordinator) == 1)
        // Saves to one store still go one at a time: the second note waits for the first.
        #expect(
            await wait(for: queued, seconds: 0.3) == .timedOut,
            "a save to the notes store overtook the one in progress")
        #expect(try s.notes.inner.fetch(FetchRequest(entityName: "Note", resultType: .count)).count() == 0)

        s.notes.release.signal()
        #expect(await wait(for: slow, seconds: 30) == .success)
        #expect(await wait(for: queued, seconds: 30) == .success)
        if quickResult == .timedOut { _ = await wait(for: quick, seconds: 30) }
        #expect(try count("Note", in: s.coordinator) == 2)
    }

    @Test func aSaveSpanningStoresWritesEachPart() throws {
        let s = try stores()
        let note = try insert("Note", "n", in: s.coordinator)
        let tag = try insert("Tag", "t", in: s.coordinator)
        let result = try s.coordinator.save(SaveRequest(inserts: [note, tag]))
        #expect(result.versions[note.objectID] == 1 && result.versions[tag.objectID] == 1)
        #expect(try s.coordinator.snapshot(for: note.objectID)?.attributes[0] == .string("n"))
        #expect(try s.tags.fetch(FetchRequest(entityName: "Tag", objectIDs: [tag.objectID])).snapshots().count == 1)
    }

    @Test func aConflictInOnePartOfASaveSpanningStoresWritesNothingThereAndStopsTheLaterParts() throws {
        let s = try stores()
        var note = try insert("Note", "n", in: s.coordinator)
        try s.coordinator.save(SaveRequest(inserts: [note]))
        note.version = 1
        note.attributes[0] = .string("changed")
        let newNote = try insert("Note", "new", in: s.coordinator)
        let tag = try insert("Tag", "t", in: s.coordinator)
        // The notes part comes first (the first insert is a note) and holds a stale update.
        let stale = SaveRequest(inserts: [newNote, tag], updates: [.init(note, expectedVersion: 7)])
        let error = try #require(throws: StrataError.self) { try s.coordinator.save(stale) }
        #expect(error.code == .conflict)
        #expect(error.conflicts.map(\.objectID) == [note.objectID])
        #expect(try count("Note", in: s.coordinator) == 1, "the notes part is atomic")
        #expect(try s.coordinator.snapshot(for: note.objectID)?.attributes[0] == .string("n"))
        #expect(try count("Tag", in: s.coordinator) == 0, "the tags part comes later and is not saved")
    }

    @Test func savesSpanningStoresInOppositeOrdersNeverWaitForEachOther() async throws {
        let s = try stores()
        let rounds = 200
        func run(noteFirst: Bool) -> DispatchSemaphore {
            inBackground { [coordinator = s.coordinator] in
                for i in 0..<rounds {
                    let note = try insert("Note", "n\(i)", in: coordinator)
                    let tag = try insert("Tag", "t\(i)", in: coordinator)
                    try coordinator.save(SaveRequest(inserts: noteFirst ? [note, tag] : [tag, note]))
                }
            }
        }
        let first = run(noteFirst: true)
        let second = run(noteFirst: false)
        #expect(await wait(for: first, seconds: 120) == .success, "saves spanning stores deadlocked")
        #expect(await wait(for: second, seconds: 120) == .success, "saves spanning stores deadlocked")
        #expect(try count("Note", in: s.coordinator) == 2 * rounds)
        #expect(try count("Tag", in: s.coordinator) == 2 * rounds)
    }
}
