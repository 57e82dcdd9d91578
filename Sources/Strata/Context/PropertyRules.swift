import StrataCore

/// The model's per-property rules, checked on one value: what a context checks at save and what
/// `strata validate` checks on a stored snapshot. Unique constraints span objects and are
/// checked by their callers.
enum PropertyRules {
    /// The violations of `attribute`'s rules by `value` (required, minimum, maximum, length,
    /// pattern), each as a failure of `objectID`.
    static func failures(of value: Value, for attribute: Attribute, objectID: ObjectID) throws -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        func fail(_ reason: String) { failures.append(ValidationFailure(objectID: objectID, property: attribute.name, reason: reason)) }
        if value.isNull {
            if !attribute.isOptional { fail("is required but has no value") }
            return failures
        }
        let rules = attribute.validation
        if let minimum = rules.minimum, let order = ValueComparison.order(value, minimum), order < 0 { fail("\(value) is less than the minimum \(minimum)") }
        if let maximum = rules.maximum, let order = ValueComparison.order(value, maximum), order > 0 { fail("\(value) is more than the maximum \(maximum)") }
        let length: Int? = {
            switch value {
            case .string(let s): return s.count
            case .binary(let d): return d.count
            default: return nil
            }
        }()
        if let length {
            let unit = attribute.type == .string ? "characters" : "bytes"
            if let minimum = rules.minimumLength, length < minimum { fail("is \(length) \(unit) long, shorter than \(minimum) (\(value))") }
            if let maximum = rules.maximumLength, length > maximum { fail("is \(length) \(unit) long, longer than \(maximum)") }
        }
        if let pattern = rules.pattern, case .string(let text) = value, !(try StringMatching.matches(text, pattern)) {
            fail("\(value) does not match the pattern \(pattern)")
        }
        return failures
    }

    /// The violations of `relationship`'s rules (required to-one, minimum and maximum count) by
    /// an object with `count` targets.
    static func failures(ofTargetCount count: Int, for relationship: Relationship, objectID: ObjectID) -> [ValidationFailure] {
        func failure(_ reason: String) -> [ValidationFailure] { [ValidationFailure(objectID: objectID, property: relationship.name, reason: reason)] }
        if !relationship.isToMany {
            return !relationship.isOptional && count == 0 ? failure("is a required relationship but has no target") : []
        }
        if relationship.minimumCount > 0 && count < relationship.minimumCount { return failure("has \(count) targets, fewer than the minimum \(relationship.minimumCount)") }
        if relationship.maximumCount > 0 && count > relationship.maximumCount { return failure("has \(count) targets, more than the maximum \(relationship.maximumCount)") }
        return []
    }
}
