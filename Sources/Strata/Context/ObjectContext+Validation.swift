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
                failures += try PropertyRules.failures(of: object.attributeValues[index], for: attribute, objectID: object.objectID)
            }
            for (index, relationship) in entity.relationships.enumerated() {
                let targets = object.relationshipValues[index].targets.filter { id in !(registeredObject(for: id)?.state.isDeleted ?? false) }
                failures += PropertyRules.failures(ofTargetCount: targets.count, for: relationship, objectID: object.objectID)
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
