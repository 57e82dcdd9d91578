import Foundation
import StrataCore

/// Checks every object of a store against its model's rules, as a save through a context
/// would: required values, minimum and maximum, lengths, patterns, required to-one
/// relationships, to-many counts, and unique constraints across the whole store. It also checks
/// what the engine keeps true by itself: both sides of every relationship agree (an employee's
/// department lists the employee among its employees, and the other way round), and no to-many
/// relationship lists one object twice.
///
/// A store can hold objects that break these rules (they were written by another tool, by a
/// batch update, or before a rule was added); this finds them without changing anything.
/// Memory: one batch of snapshots, the values of each unique constraint's entity, and 32 bytes
/// per link of a relationship that has an inverse.
public struct StoreValidator: Sendable {
    /// Objects fetched at a time.
    public var batchSize: Int

    /// Creates a validator fetching `batchSize` objects at a time.
    public init(batchSize: Int = 1_000) {
        self.batchSize = max(1, batchSize)
    }

    /// What a validation found.
    public struct Report: Sendable, Hashable {
        /// Objects checked, by entity name.
        public var checked: [String: Int]
        /// Every violation: the objects' own, entity by entity in model order and objects in
        /// primary-key order, then relationships whose sides disagree, pair by pair.
        public var violations: [ValidationFailure]
    }

    /// Checks every object of `store`.
    ///
    /// - Throws: the store's errors, and ``StrataError/Code/invalidModel`` for a pattern that is
    ///   not a valid regular expression.
    public func validate(_ store: any PersistentStore) throws -> Report {
        var report = Report(checked: [:], violations: [])
        var inverses = InverseLedger(model: store.model)
        for entity in store.model.entities {
            let ids = try store.fetch(FetchRequest(entityName: entity.name, resultType: .objectIDs)).objectIDs()
            report.checked[entity.name] = ids.count
            var owners: [[[Value]: ObjectID]] = Array(repeating: [:], count: entity.uniqueConstraints.count)
            let constraintIndexes = entity.uniqueConstraints.map { $0.map { entity.attributeIndex(named: $0)! } }
            var start = 0
            while start < ids.count {
                let batch = Array(ids[start..<min(start + batchSize, ids.count)])
                for snapshot in try store.fetch(FetchRequest(entityName: entity.name, objectIDs: batch)).snapshots() {
                    report.violations += try PropertyRules.failures(of: snapshot, entity: entity)
                    report.violations += Self.repeatedTargets(of: snapshot, entity: entity)
                    inverses.record(snapshot, entity: entity)
                    for (c, indexes) in constraintIndexes.enumerated() {
                        let key = indexes.map { snapshot.attributes[$0] }
                        if key.contains(where: \.isNull) { continue }
                        if let other = owners[c][key] {
                            report.violations.append(
                                ValidationFailure(
                                    objectID: snapshot.objectID,
                                    property: entity.uniqueConstraints[c].joined(separator: ","),
                                    reason:
                                        "\(key.map(\.description).joined(separator: ", ")) is also used by \(other); '\(entity.name)' requires it to be unique"
                                ))
                        } else {
                            owners[c][key] = snapshot.objectID
                        }
                    }
                }
                start += batch.count
            }
        }
        report.violations += inverses.disagreements(storeIdentifier: store.identifier)
        return report
    }

    /// A failure for each object a to-many relationship of `snapshot` lists more than once.
    static func repeatedTargets(of snapshot: Snapshot, entity: Entity) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        for (relationship, value) in zip(entity.relationships, snapshot.relationships)
        where relationship.isToMany && value.targets.count > 1 {
            var seen: Set<ObjectID> = []
            var reported: Set<ObjectID> = []
            for target in value.targets where !seen.insert(target).inserted && reported.insert(target).inserted {
                let times = value.targets.reduce(0) { $0 + ($1 == target ? 1 : 0) }
                failures.append(
                    ValidationFailure(
                        objectID: snapshot.objectID, property: relationship.name,
                        reason: "lists \(target) \(times) times"))
            }
        }
        return failures
    }
}
