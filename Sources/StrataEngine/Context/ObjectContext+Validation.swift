import StrataCore

extension ObjectContext {
    /// Every rule violation of the objects about to be saved: required values, ranges, lengths,
    /// patterns, relationship counts and unique constraints (within the context and against the
    /// store). Complexity: O(objects × properties) plus one store query per constraint and object.
    func validationFailures(of objects: [ManagedObject]) throws -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        var ruled = RuledProperties(entity: nil)
        for object in objects {
            if !ruled.isFor(object.entity) { ruled = RuledProperties(entity: object.entity) }
            for index in ruled.attributes.indices {
                // Most attributes have no rule: only a missing required value can fail them.
                if !ruled.attributes[index] {
                    if ruled.optional[index] { continue }
                    if case .null = object.attributeValues[index] {} else { continue }
                }
                failures += try PropertyRules.failures(
                    of: object.attributeValues[index], for: object.entity.attributes[index], objectID: object.objectID)
            }
            for index in ruled.relationships {
                let relationship = object.entity.relationships[index]
                let targets = object.relationshipValues[index].targets.filter { id in
                    !(registeredObject(for: id)?.state.isDeleted ?? false)
                }
                failures += PropertyRules.failures(
                    ofTargetCount: targets.count, for: relationship, objectID: object.objectID)
            }
        }
        if objects.contains(where: { !$0.entity.uniqueConstraints.isEmpty }) {
            failures += try uniqueConstraintFailures(of: objects.filter { !$0.entity.uniqueConstraints.isEmpty })
        }
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
                        failures.append(
                            ValidationFailure(
                                objectID: object.objectID, property: property,
                                reason:
                                    "\(shown) is also used by \(other) in this context; '\(entityName)' requires it to be unique"
                            ))
                        continue
                    }
                    seen[key] = object.objectID
                    let predicate = ObjectPredicate.and(
                        zip(constraint, key).map {
                            .comparison(.init(.keyPath(PropertyPath($0)), .equal, .constant($1)))
                        })
                    let holders = try coordinator.fetch(
                        FetchRequest(entityName: entityName, predicate: predicate, resultType: .objectIDs)
                    ).objectIDs()
                    for holder in holders where holder != object.objectID {
                        if let mine = registeredObject(for: holder),
                            mine.state.isDeleted
                                || (mine.state.isDirty && indexes.map({ mine.attributeValues[$0] }) != key)
                        {
                            continue
                        }
                        failures.append(
                            ValidationFailure(
                                objectID: object.objectID, property: property,
                                reason:
                                    "\(shown) is already used by \(holder) in the store; '\(entityName)' requires it to be unique"
                            ))
                        break
                    }
                }
            }
        }
        return failures
    }
}

/// Which properties of an entity carry a rule to check at save: attributes with validation
/// rules (a required attribute is checked whenever its value is missing), and relationships that
/// are required or have a count limit.
private struct RuledProperties {
    let entity: Entity?
    let entityName: String?
    /// Whether each attribute has validation rules.
    let attributes: [Bool]
    /// Whether each attribute is optional.
    let optional: [Bool]
    let relationships: [Int]

    init(entity: Entity?) {
        self.entity = entity
        entityName = entity?.name
        attributes = entity?.attributes.map { !$0.validation.isEmpty } ?? []
        optional = entity?.attributes.map(\.isOptional) ?? []
        relationships =
            entity?.relationships.indices.filter { index in
                let relationship = entity!.relationships[index]
                return relationship.isToMany
                    ? (relationship.minimumCount > 0 || relationship.maximumCount > 0) : !relationship.isOptional
            } ?? []
    }

    /// Whether these are the rules of `other` (one pointer comparison for the same model's
    /// entity, as in a run of one entity's objects; the name otherwise).
    func isFor(_ other: Entity) -> Bool {
        guard let entity else { return false }
        return entity.isSameDeclaration(as: other) || entityName == other.name
    }
}
