import StrataCore

extension ObjectContext {
    /// Every rule violation of the objects about to be saved: required values, ranges, lengths,
    /// patterns, relationship counts and unique constraints (within the context and against the
    /// store). Complexity: O(objects × properties) plus one store query per constraint and object.
    func validationFailures(of objects: [ManagedObject]) throws -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        for object in objects {
            let entity = object.entity
            for (index, attribute) in entity.attributes.enumerated() {
                let value = object.attributeValues[index]
                func fail(_ reason: String) { failures.append(ValidationFailure(objectID: object.objectID, property: attribute.name, reason: reason)) }
                if value.isNull {
                    if !attribute.isOptional { fail("is required but has no value") }
                    continue
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
            }
            for (index, relationship) in entity.relationships.enumerated() {
                let targets = object.relationshipValues[index].targets.filter { id in !(registeredObject(for: id)?.state.isDeleted ?? false) }
                func fail(_ reason: String) { failures.append(ValidationFailure(objectID: object.objectID, property: relationship.name, reason: reason)) }
                if !relationship.isToMany {
                    if !relationship.isOptional && targets.isEmpty { fail("is a required relationship but has no target") }
                } else {
                    if relationship.minimumCount > 0 && targets.count < relationship.minimumCount { fail("has \(targets.count) targets, fewer than the minimum \(relationship.minimumCount)") }
                    if relationship.maximumCount > 0 && targets.count > relationship.maximumCount { fail("has \(targets.count) targets, more than the maximum \(relationship.maximumCount)") }
                }
            }
        }
        failures += try uniqueConstraintFailures(of: objects)
        return failures
    }

    private func uniqueConstraintFailures(of objects: [ManagedObject]) throws -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        for (entityName, group) in Dictionary(grouping: objects, by: { $0.entity.name }) {
            let entity = group[0].entity
            for constraint in entity.uniqueConstraints {
                let indexes = constraint.map { entity.attributeIndex(named: $0)! }
                let property = constraint.joined(separator: ",")
                var seen: [[Value]: ObjectID] = [:]
                for object in group {
                    let key = indexes.map { object.attributeValues[$0] }
                    if key.contains(where: \.isNull) { continue }
                    let shown = key.map(\.description).joined(separator: ", ")
                    if let other = seen[key] {
                        failures.append(ValidationFailure(objectID: object.objectID, property: property, reason: "\(shown) is also used by \(other) in this context; '\(entityName)' requires it to be unique"))
                        continue
                    }
                    seen[key] = object.objectID
                    let predicate = ObjectPredicate.and(zip(constraint, key).map { .comparison(.init(.keyPath(PropertyPath($0)), .equal, .constant($1))) })
                    let holders = try coordinator.fetch(FetchRequest(entityName: entityName, predicate: predicate, resultType: .objectIDs)).objectIDs()
                    for holder in holders where holder != object.objectID {
                        if let mine = registeredObject(for: holder), mine.state.isDeleted || (mine.state.isDirty && indexes.map({ mine.attributeValues[$0] }) != key) { continue }
                        failures.append(ValidationFailure(objectID: object.objectID, property: property, reason: "\(shown) is already used by \(holder) in the store; '\(entityName)' requires it to be unique"))
                        break
                    }
                }
            }
        }
        return failures
    }
}
