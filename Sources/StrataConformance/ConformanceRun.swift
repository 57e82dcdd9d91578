import Foundation
import StrataCore

/// The state of one check's run: its store, its fixtures, and assertion helpers that throw
/// ``ConformanceFailure``.
final class ConformanceRun: Sendable {
    let check: String
    let subject: ConformanceSubject
    let url: StoreURL
    let model: Model = ConformanceFixtures.model
    private let opened = Locked<[any PersistentStore]>([])
    private let urlError: String?

    init(check: String, subject: ConformanceSubject) {
        self.check = check
        self.subject = subject
        do {
            url = try subject.makeURL()
            urlError = nil
        } catch {
            url = StoreURL(scheme: subject.backend.scheme, location: "")
            urlError = "\(error)"
        }
    }

    /// Opens the run's store (or `url`) with `model` (the fixtures' by default).
    func open(_ url: StoreURL? = nil, model: Model? = nil, options: StoreOptions? = nil) throws -> any PersistentStore {
        if let urlError { throw fail("the subject could not make a store URL: \(urlError)") }
        var options = options ?? subject.options
        options.options.merge(subject.options.options) { mine, _ in mine }
        let store = try subject.backend.open(url ?? self.url, model: model ?? self.model, options: options)
        opened.withLock { $0.append(store) }
        return store
    }

    /// Closes every store the run opened and destroys the location.
    func cleanUp() {
        for store in opened.withLock({ $0 }) { try? store.close() }
        guard urlError == nil else { return }
        try? subject.backend.destroyStore(at: url)
        // A directory made by ConformanceSubject.temporaryURL goes too.
        let parent = URL(fileURLWithPath: url.location).deletingLastPathComponent()
        if parent.lastPathComponent.hasPrefix("strata-conformance-") { try? FileManager.default.removeItem(at: parent) }
    }

    func fail(_ message: String) -> ConformanceFailure {
        ConformanceFailure(check: check, backend: subject.name, message: message)
    }

    func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw fail(message()) }
    }

    func expectEqual<T: Equatable>(_ actual: T, _ expected: T, _ what: @autoclosure () -> String) throws {
        if actual != expected { throw fail("\(what()): expected \(expected), got \(actual)") }
    }

    /// Runs `body`, which must throw a ``StrataError`` with `code`; returns that error.
    @discardableResult
    func expectError(_ code: StrataError.Code, _ what: String, _ body: () throws -> Void) throws -> StrataError {
        do {
            try body()
        } catch let error as StrataError {
            if error.code != code { throw fail("\(what): expected a \(code) error, got \(error.code): \(error.message)") }
            if error.message.isEmpty { throw fail("\(what): the \(code) error has no message") }
            return error
        } catch {
            throw fail("\(what): expected a StrataError \(code), got \(type(of: error)): \(error)")
        }
        throw fail("\(what): expected a \(code) error, but it succeeded")
    }

    // MARK: Building snapshots

    func entity(_ name: String) -> Entity { model.entity(named: name)! }

    /// A snapshot of `entityName` with `values` set by name (others default), relationships by name.
    func snapshot(_ id: ObjectID, _ values: [String: Value] = [:], relationships: [String: RelationshipValue] = [:]) throws -> Snapshot {
        let entity = entity(id.entityName)
        var snapshot = Snapshot(objectID: id, entity: entity)
        for (name, value) in values {
            guard let i = entity.attributeIndex(named: name) else { throw fail("fixture bug: \(entity.name).\(name)") }
            snapshot.attributes[i] = value
        }
        for (name, value) in relationships {
            guard let i = entity.relationshipIndex(named: name) else { throw fail("fixture bug: \(entity.name).\(name)") }
            snapshot.relationships[i] = value
        }
        return snapshot
    }

    func ids(_ store: any PersistentStore, _ entityName: String, _ count: Int) throws -> [ObjectID] {
        let ids = try store.obtainPermanentIDs(for: entityName, count: count)
        try expectEqual(ids.count, count, "obtainPermanentIDs(\(entityName), \(count)) count")
        return ids
    }

    func all(_ store: any PersistentStore, _ entityName: String) throws -> [Snapshot] {
        try store.fetch(FetchRequest(entityName: entityName)).snapshots()
    }

    func one(_ store: any PersistentStore, _ id: ObjectID) throws -> Snapshot? {
        try store.fetch(FetchRequest(entityName: id.entityName, objectIDs: [id])).snapshots().first
    }

    func value(_ snapshot: Snapshot, _ name: String) -> Value {
        snapshot.value(of: name, in: entity(snapshot.objectID.entityName)) ?? .null
    }

    func relationship(_ snapshot: Snapshot, _ name: String) -> RelationshipValue? {
        snapshot.relationship(name, in: entity(snapshot.objectID.entityName))
    }

    /// Seeds the standard fixtures.
    func seed(_ store: any PersistentStore) throws -> ConformanceFixtures.Seeded {
        try ConformanceFixtures.seed(store, run: self)
    }
}
