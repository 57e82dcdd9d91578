import Foundation
import Strata
import StrataTestSupport

/// The Company model and a few employees, for the logging tests.
enum LoggedCompany {
    static let versions: VersionedModel = try! Repository.companyVersions()
    static var model: Model { versions.current }

    /// Inserts employees named `names` (their names are the values no log may show above `trace`).
    static func insertEmployees(_ names: [String], into store: any PersistentStore) throws -> [ObjectID] {
        let entity = try store.model.requireEntity("Employee")
        let ids = try store.obtainPermanentIDs(for: "Employee", count: names.count)
        let snapshots = zip(ids, names).map { id, name in
            var snapshot = Snapshot(objectID: id, entity: entity)
            snapshot.attributes[entity.attributeIndex(named: "name")!] = .string(name)
            if let level = entity.attributeIndex(named: "level") { snapshot.attributes[level] = .integer(1) }
            if let height = entity.attributeIndex(named: "height") { snapshot.attributes[height] = .double(1.7) }
            return snapshot
        }
        try store.save(SaveRequest(inserts: snapshots))
        return ids
    }
}

extension Array where Element == CapturingLogHandler.Record {
    /// The records of the logger `label`.
    func labelled(_ label: String) -> [CapturingLogHandler.Record] { filter { $0.label == label } }

    /// Whether no record mentions `value` in its message or metadata.
    func neverMention(_ value: String) -> Bool { !contains { $0.mentions(value) } }
}
