import StrataCore

extension ObjectContext {
    /// Every rule violation of the objects about to be saved: required values, ranges, lengths,
    /// patterns, relationship counts and unique constraints (within the context and against the
    /// store). Complexity: O(objects × properties), plus for each unique constraint one store
    /// query per ``uniqueCheckBatchSize`` new or changed values (a push a child validated is not
    /// validated again; see ``CheckedPush``). `askingStoresAboutInserts: false` checks inserted
    /// objects against each other only, not against the stores that enforce unique constraints
    /// themselves as they write (``UniqueConstraintEnforcing``): their save rejects a collision,
    /// and ``uniqueFailuresAfterRejectedSave(of:)`` then names it.
    func validationFailures(
        of objects: [ManagedObject], askingStoresAboutInserts: Bool = true
    ) throws -> [ValidationFailure] {
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
            let constrained = objects.filter { !$0.entity.uniqueConstraints.isEmpty }
            var unique = try uniqueConstraintFailures(
                of: constrained, askingStoresAboutInserts: askingStoresAboutInserts)
            // A save that fails anyway reports every collision, those with stored objects too.
            if !askingStoresAboutInserts && !(failures.isEmpty && unique.isEmpty) {
                unique = try uniqueConstraintFailures(of: constrained, askingStoresAboutInserts: true)
            }
            failures += unique
        }
        return failures
    }

    /// The unique-constraint failures of `objects` after a store refused their save with
    /// ``StrataError/Code/uniqueConstraint``: the full check, the stores asked about every new
    /// value, sorted as a save reports them.
    func uniqueFailuresAfterRejectedSave(of objects: [ManagedObject]) throws -> [ValidationFailure] {
        let constrained = objects.filter { !$0.entity.uniqueConstraints.isEmpty }
        guard !constrained.isEmpty else { return [] }
        return try uniqueConstraintFailures(of: constrained, askingStoresAboutInserts: true).sorted {
            ($0.objectID, $0.property ?? "") < ($1.objectID, $1.property ?? "")
        }
    }

    /// The unique-constraint failures of `objects`: two of them sharing a constrained value, or
    /// one taking a value an object of the store holds (unless this context deletes that object
    /// or moves it off the value).
    ///
    /// Only objects that can collide are checked: inserted ones, and changed ones whose
    /// constrained values differ from what they were read with. The store is asked in batches,
    /// one fetch per ``uniqueCheckBatchSize`` values of a constraint (an `IN` list for a
    /// single-attribute constraint, an `OR` of equalities for a compound one), so a save makes a
    /// number of fetches that grows with the new values divided by the batch size, not with the
    /// objects saved. For at least ``uniqueBoundsThreshold`` values of an integer constraint on
    /// its own, a store that finds the ends of its index cheaply (``UniqueIntegerBounds``) is
    /// asked them first, and then only about the values between them: a first import, or keys
    /// above every stored one, makes no fetch. With `askingStoresAboutInserts: false`, inserted
    /// objects of an entity whose store enforces unique constraints itself are checked against
    /// each other only.
    private func uniqueConstraintFailures(of objects: [ManagedObject], askingStoresAboutInserts: Bool) throws
        -> [ValidationFailure]
    {
        var failures: [ValidationFailure] = []
        // Usually every object is of one entity: no grouping by name then.
        let first = objects[0].entity
        let groups =
            objects.allSatisfy { $0.entity.isSameDeclaration(as: first) }
            ? [first.name: objects] : Dictionary(grouping: objects, by: { $0.entity.name })
        for (entityName, group) in groups {
            let entity = group[0].entity
            let storeChecksInserts =
                !askingStoresAboutInserts && coordinator.enforcesUniqueConstraints(of: entityName)
            for constraint in entity.uniqueConstraints {
                let indexes = constraint.map { entity.attributeIndex(named: $0)! }
                let property = constraint.joined(separator: ",")
                func shown(_ key: ConstraintKey) -> String { key.values.map(\.description).joined(separator: ", ") }
                // Each new value, by the first object of this context that takes it.
                var seen: [ConstraintKey: ManagedObject] = [:]
                var checked: [(key: ConstraintKey, object: ManagedObject)] = []
                let integerIndex =
                    indexes.count == 1 && entity.attributes[indexes[0]].type.integerRange != nil ? indexes[0] : nil
                if let integerIndex,
                    var distinct = Self.distinctNewIntegers(
                        in: group, at: integerIndex, leavingInsertsToStore: storeChecksInserts)
                {
                    // No two objects here share a new value (the usual save): only the store can
                    // hold one of them, and only one between its least and greatest.
                    if distinct.count >= Self.uniqueBoundsThreshold,
                        let bounds = try coordinator.storedUniqueBounds(of: constraint[0], in: entityName)
                    {
                        distinct = bounds.map { bounds in distinct.filter { bounds.contains($0.value) } } ?? []
                    }
                    checked = distinct.map { (ConstraintKey(single: .integer($0.value)), group[$0.position]) }
                    for (key, object) in checked { seen[key] = object }
                } else {
                    for object in group {
                        let key = ConstraintKey(object.attributeValues, at: indexes)
                        if key.hasNull { continue }
                        if let original = object.original, !object.state.isInserted,
                            indexes.allSatisfy({ original.attributes[$0] == object.attributeValues[$0] })
                        {
                            continue
                        }
                        if seen.isEmpty { seen.reserveCapacity(group.count) }
                        // One hash of the key for the usual new value (a lookup and an insertion in one).
                        if let other = seen.updateValue(object, forKey: key) {
                            seen[key] = other
                            failures.append(
                                ValidationFailure(
                                    objectID: object.objectID, property: property,
                                    reason:
                                        "\(shown(key)) is also used by \(other.objectID) in this context; '\(entityName)' requires it to be unique"
                                ))
                            continue
                        }
                        if storeChecksInserts && object.state.isInserted { continue }
                        checked.append((key, object))
                    }
                    if checked.count >= Self.uniqueBoundsThreshold, integerIndex != nil,
                        let bounds = try coordinator.storedUniqueBounds(of: constraint[0], in: entityName)
                    {
                        checked = Self.inside(bounds, checked)
                    }
                }
                // The store's holder of each value, first found, unless it is the object itself or
                // this context deletes it or moved it off the value.
                var taken: [ObjectIdentifier: ObjectID] = [:]
                let batchSize = max(1, Self.uniqueCheckBatchSize / indexes.count)
                for start in stride(from: 0, to: checked.count, by: batchSize) {
                    let batch = checked[start..<min(start + batchSize, checked.count)]
                    let holders = try coordinator.fetch(
                        holderRequest(
                            FetchRequest(
                                entityName: entityName,
                                predicate: Self.holderPredicate(constraint, keys: batch.map(\.key)))
                        )
                    ).snapshots()
                    func isFreed(_ holder: ObjectID, from key: ConstraintKey) -> Bool {
                        guard let mine = registeredObject(for: holder) else { return false }
                        return mine.state.isDeleted
                            || (mine.state.isDirty && ConstraintKey(mine.attributeValues, at: indexes) != key)
                    }
                    var unmatched = false
                    for holder in holders {
                        let key = ConstraintKey(holder.attributes, at: indexes)
                        guard let object = seen[key] else {
                            unmatched = true
                            continue
                        }
                        guard holder.objectID != object.objectID, taken[ObjectIdentifier(object)] == nil,
                            !isFreed(holder.objectID, from: key)
                        else { continue }
                        taken[ObjectIdentifier(object)] = holder.objectID
                    }
                    // A holder whose stored value the store finds equal but that reads back as
                    // another value (a decimal stored as a double): ask about each value alone.
                    guard unmatched else { continue }
                    for (key, object) in batch where taken[ObjectIdentifier(object)] == nil {
                        let alone = try coordinator.fetch(
                            FetchRequest(
                                entityName: entityName, predicate: Self.holderPredicate(constraint, keys: [key]),
                                resultType: .objectIDs)
                        ).objectIDs()
                        if let holder = alone.first(where: { $0 != object.objectID && !isFreed($0, from: key) }) {
                            taken[ObjectIdentifier(object)] = holder
                        }
                    }
                }
                for (key, object) in checked {
                    guard let holder = taken[ObjectIdentifier(object)] else { continue }
                    failures.append(
                        ValidationFailure(
                            objectID: object.objectID, property: property,
                            reason:
                                "\(shown(key)) is already used by \(holder) in the store; '\(entityName)' requires it to be unique"
                        ))
                }
            }
        }
        return failures
    }

    /// `request`, a fetch of holders of constrained values, marked as checked against the model:
    /// its predicate compares the entity's own constrained attributes with values its objects
    /// hold (which fit the attributes' types), so the model's check of every value of the list
    /// would pass. Debug builds make that check.
    private func holderRequest(_ request: FetchRequest) -> FetchRequest {
        assert(
            (try? request.validated(for: model)) != nil, "the unique check built an invalid request: \(request)")
        return request.markedValidated(for: model)
    }

    /// The new values of the integer attribute at `index` among `objects` (those of inserted
    /// objects, and of changed ones that differ from what they were read with), each with its
    /// object's position; inserted objects left out when `leavingInsertsToStore`. `nil` when two
    /// objects share a new value, or one holds something other than an integer or null: the
    /// full check then finds and reports it.
    ///
    /// The usual save of new keys, in one pass over the objects and an ``IntegerKeySet``, with
    /// no constraint key made or hashed per object.
    private static func distinctNewIntegers(
        in objects: [ManagedObject], at index: Int, leavingInsertsToStore: Bool
    ) -> [(value: Int64, position: Int)]? {
        var values = IntegerKeySet(capacity: objects.count)
        var new: [(value: Int64, position: Int)] = []
        if !leavingInsertsToStore { new.reserveCapacity(objects.count) }
        for (position, object) in objects.enumerated() {
            let value: Int64
            switch object.attributeValues[index] {
            case .integer(let integer): value = integer
            case .null: continue
            default: return nil
            }
            if !object.state.isInserted, let original = object.original,
                original.attributes[index] == object.attributeValues[index]
            {
                continue
            }
            guard values.insert(value) else { return nil }
            if leavingInsertsToStore && object.state.isInserted { continue }
            new.append((value, position))
        }
        return new
    }

    /// From how many new values of an integer constraint on its own the check first asks the
    /// store for the ends of its index (``UniqueIntegerBounds``): two index lookups, against a
    /// fetch per ``uniqueCheckBatchSize`` values; below it, the fetches cost less.
    static let uniqueBoundsThreshold = 32

    /// The entries of `checked` whose integer value lies within `bounds`, the least and greatest
    /// stored values (none when `nil`): only they can collide with a stored object.
    private static func inside<Object>(
        _ bounds: ClosedRange<Int64>?, _ checked: [(key: ConstraintKey, object: Object)]
    ) -> [(key: ConstraintKey, object: Object)] {
        guard let bounds else { return [] }
        return checked.filter { entry in
            guard case .integer(let value) = entry.key.first else { return true }
            return bounds.contains(value)
        }
    }

    /// How many constrained values one store fetch of the unique-constraint check asks about
    /// (divided among the attributes of a compound constraint): well below SQLite's smallest
    /// limit on bound parameters (999) and its expression depth (1,000).
    static let uniqueCheckBatchSize = 500

    /// The objects holding any of `keys` for `constraint`: `attribute IN {values}` for one
    /// attribute, an `OR` of `AND`ed equalities for several.
    private static func holderPredicate(_ constraint: [String], keys: [ConstraintKey]) -> ObjectPredicate {
        if constraint.count == 1 {
            return .comparison(
                .init(.keyPath(PropertyPath(constraint[0])), .in, .list(keys.map { .constant($0.first) })))
        }
        return .or(
            keys.map { key in
                .and(
                    zip(constraint, key.values).map {
                        .comparison(.init(.keyPath(PropertyPath($0)), .equal, .constant($1)))
                    })
            })
    }
}

/// The values of a unique constraint's attributes in one object: the first apart, so that a
/// single-attribute constraint (the usual kind) makes no array per object.
private struct ConstraintKey: Hashable {
    let first: Value
    let rest: [Value]

    init(_ values: [Value], at indexes: [Int]) {
        first = values[indexes[0]]
        rest = indexes.count == 1 ? [] : indexes.dropFirst().map { values[$0] }
    }

    /// The key of a single-attribute constraint.
    init(single value: Value) {
        first = value
        rest = []
    }

    var hasNull: Bool { first.isNull || rest.contains(where: \.isNull) }
    var values: [Value] { [first] + rest }
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
