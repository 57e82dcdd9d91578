import Foundation
import StrataCore

/// Checks every object of a store against its model's rules, as a save through a context
/// would: required values, minimum and maximum, lengths, patterns, required to-one
/// relationships, to-many counts, and unique constraints across the whole store.
///
/// A store can hold objects that break these rules (they were written by another tool, by a
/// batch update, or before a rule was added); this finds them without changing anything.
/// Memory: one batch of snapshots, plus the values of each unique constraint's entity.
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
        /// Every violation, entity by entity in model order, objects in primary-key order.
        public var violations: [ValidationFailure]
    }

    /// Checks every object of `store`.
    ///
    /// - Throws: the store's errors, and ``StrataError/Code/invalidModel`` for a pattern that is
    ///   not a valid regular expression.
    public func validate(_ store: any PersistentStore) throws -> Report {
        var report = Report(checked: [:], violations: [])
        for entity in store.model.entities {
            let ids = try store.fetch(FetchRequest(entityName: entity.name, resultType: .objectIDs)).objectIDs()
            report.checked[entity.name] = ids.count
            var owners: [[[Value]: ObjectID]] = Array(repeating: [:], count: entity.uniqueConstraints.count)
            let constraintIndexes = entity.uniqueConstraints.map { $0.map { entity.attributeIndex(named: $0)! } }
            var start = 0
            while start < ids.count {
                let batch = Array(ids[start..<min(start + batchSize, ids.count)])
                for snapshot in try store.fetch(FetchRequest(entityName: entity.name, objectIDs: batch)).snapshots() {
                    report.violations += try Self.failures(of: snapshot, entity: entity)
                    for (c, indexes) in constraintIndexes.enumerated() {
                        let key = indexes.map { snapshot.attributes[$0] }
                        if key.contains(where: \.isNull) { continue }
                        if let other = owners[c][key] {
                            report.violations.append(ValidationFailure(
                                objectID: snapshot.objectID, property: entity.uniqueConstraints[c].joined(separator: ","),
                                reason: "\(key.map(\.description).joined(separator: ", ")) is also used by \(other); '\(entity.name)' requires it to be unique"))
                        } else {
                            owners[c][key] = snapshot.objectID
                        }
                    }
                }
                start += batch.count
            }
        }
        return report
    }

    /// The rule violations of one object's own values (unique constraints aside).
    static func failures(of snapshot: Snapshot, entity: Entity) throws -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        for (attribute, value) in zip(entity.attributes, snapshot.attributes) {
            failures += try PropertyRules.failures(of: value, for: attribute, objectID: snapshot.objectID)
        }
        for (relationship, value) in zip(entity.relationships, snapshot.relationships) {
            failures += PropertyRules.failures(ofTargetCount: value.targets.count, for: relationship, objectID: snapshot.objectID)
        }
        return failures
    }
}
