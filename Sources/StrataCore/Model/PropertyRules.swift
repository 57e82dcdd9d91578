/// The model's per-object rules, checked on values: what a context checks at save, what an
/// import, a copy and a streaming migration check before they write, and what `strata validate`
/// checks on a stored snapshot. One place, so every path that writes applies the same rules.
/// Unique constraints span objects and are checked by their callers.
package enum PropertyRules {
    /// The violations of `attribute`'s rules by `value` (required, minimum, maximum, length,
    /// pattern), each as a failure of `objectID`. NaN breaks any minimum or maximum: it lies in
    /// no range.
    package static func failures(of value: Value, for attribute: Attribute, objectID: ObjectID) throws
        -> [ValidationFailure]
    {
        var failures: [ValidationFailure] = []
        func fail(_ reason: String) {
            failures.append(ValidationFailure(objectID: objectID, property: attribute.name, reason: reason))
        }
        if value.isNull {
            if !attribute.isOptional { fail("is required but has no value") }
            return failures
        }
        let rules = attribute.validation
        if rules.minimum != nil || rules.maximum != nil, let number = ValueComparison.double(value), number.isNaN {
            fail(
                "NaN is not a number within \(rules.minimum?.description ?? "-∞")...\(rules.maximum?.description ?? "∞")"
            )
        }
        if let minimum = rules.minimum, let order = ValueComparison.order(value, minimum), order < 0 {
            fail("\(value) is less than the minimum \(minimum)")
        }
        if let maximum = rules.maximum, let order = ValueComparison.order(value, maximum), order > 0 {
            fail("\(value) is more than the maximum \(maximum)")
        }
        let length: Int? = {
            switch value {
            case .string(let s): return s.count
            case .binary(let d): return d.count
            default: return nil
            }
        }()
        if let length {
            let unit = attribute.type == .string ? "characters" : "bytes"
            if let minimum = rules.minimumLength, length < minimum {
                fail("is \(length) \(unit) long, shorter than \(minimum) (\(value))")
            }
            if let maximum = rules.maximumLength, length > maximum {
                fail("is \(length) \(unit) long, longer than \(maximum)")
            }
        }
        if let pattern = rules.pattern, case .string(let text) = value, !(try StringMatching.matches(text, pattern)) {
            fail("\(value) does not match the pattern \(pattern)")
        }
        return failures
    }

    /// The violations of `relationship`'s rules (required to-one, minimum and maximum count) by
    /// an object with `count` targets.
    package static func failures(ofTargetCount count: Int, for relationship: Relationship, objectID: ObjectID)
        -> [ValidationFailure]
    {
        func failure(_ reason: String) -> [ValidationFailure] {
            [ValidationFailure(objectID: objectID, property: relationship.name, reason: reason)]
        }
        if !relationship.isToMany {
            return !relationship.isOptional && count == 0 ? failure("is a required relationship but has no target") : []
        }
        if relationship.minimumCount > 0 && count < relationship.minimumCount {
            return failure("has \(count) targets, fewer than the minimum \(relationship.minimumCount)")
        }
        if relationship.maximumCount > 0 && count > relationship.maximumCount {
            return failure("has \(count) targets, more than the maximum \(relationship.maximumCount)")
        }
        return []
    }

    /// The violations of `entity`'s attribute rules by `attributes` (in model order), as failures of `objectID`.
    package static func failures(ofAttributes attributes: [Value], of entity: Entity, objectID: ObjectID) throws
        -> [ValidationFailure]
    {
        var failures: [ValidationFailure] = []
        for (attribute, value) in zip(entity.attributes, attributes) {
            // Most attributes have no rule: only a missing required value can break them.
            if attribute.validation.isEmpty && (attribute.isOptional || !value.isNull) { continue }
            failures += try Self.failures(of: value, for: attribute, objectID: objectID)
        }
        return failures
    }

    /// The rule violations of one object's own values (unique constraints aside): its attributes
    /// and the target counts of its relationships.
    package static func failures(of snapshot: Snapshot, entity: Entity) throws -> [ValidationFailure] {
        var failures = try Self.failures(ofAttributes: snapshot.attributes, of: entity, objectID: snapshot.objectID)
        for (relationship, value) in zip(entity.relationships, snapshot.relationships) {
            failures += Self.failures(
                ofTargetCount: value.targets.count, for: relationship, objectID: snapshot.objectID)
        }
        return failures
    }
}
