import StrataCore

extension ManagedObject {
    /// The target of the to-one relationship `key`, or `nil`.
    public func object(for key: String) throws -> ManagedObject? {
        checkConfinement()
        let (index, relationship) = try relationshipIndex(key)
        guard !relationship.isToMany else {
            throw StrataError(
                .typeMismatch, "'\(entity.name).\(key)' is to-many; use objects(for:)",
                location: ["entity": entity.name, "key": key])
        }
        fulfill()
        return relationshipValues[index].targets.first.flatMap { context?.object(with: $0) }
    }

    /// The targets of the to-many relationship `key`: in the user's order when ordered, by
    /// object ID otherwise.
    public func objects(for key: String) throws -> [ManagedObject] {
        checkConfinement()
        let (index, relationship) = try relationshipIndex(key)
        guard relationship.isToMany else {
            throw StrataError(
                .typeMismatch, "'\(entity.name).\(key)' is to-one; use object(for:)",
                location: ["entity": entity.name, "key": key])
        }
        fulfill()
        guard let context else { return [] }
        return relationshipValues[index].targets.map { context.object(with: $0) }
    }

    /// The IDs of the targets of relationship `key`, without loading them.
    public func objectIDs(for key: String) throws -> [ObjectID] {
        checkConfinement()
        let (index, _) = try relationshipIndex(key)
        fulfill()
        return relationshipValues[index].targets
    }

    /// Sets the to-one relationship `key` to `target` and keeps the inverse in step at once:
    /// the old target forgets this object, the new one lists it (and, for a one-to-one, its
    /// previous partner is detached).
    ///
    /// - Throws: ``StrataError/Code/unknownKey``; ``StrataError/Code/typeMismatch`` for a to-many
    ///   key or a target of another entity; ``StrataError/Code/invalidObjectID`` for a target of
    ///   another context.
    public func setObject(_ target: ManagedObject?, for key: String) throws {
        checkConfinement()
        let (index, relationship) = try relationshipIndex(key)
        guard !relationship.isToMany else {
            throw StrataError(
                .typeMismatch, "'\(entity.name).\(key)' is to-many; use setObjects(_:for:)",
                location: ["entity": entity.name, "key": key])
        }
        try setObject(target, atRelationshipIndex: index)
    }

    /// Sets the to-one relationship at `index` of the entity: what ``setObject(_:for:)`` does
    /// once the key is found and checked to be to-one.
    func setObject(_ target: ManagedObject?, atRelationshipIndex index: Int) throws {
        let relationship = entity.relationships[index]
        try checkWritable()
        if let target { try checkTarget(target, of: relationship) }
        fulfill()
        let old = relationshipValues[index].targets.first
        if old == target?.objectID { return }
        if let old, let oldObject = context?.object(with: old) {
            oldObject.unlink(objectID, fromInverseOf: relationship)
        }
        if let target { target.link(objectID, intoInverseOf: relationship) }
        setTargets([target?.objectID].compactMap { $0 }, at: index)
    }

    /// Replaces the targets of the to-many relationship `key`, keeping every inverse in step.
    public func setObjects(_ targets: [ManagedObject], for key: String) throws {
        checkConfinement()
        try setObjects(targets, atRelationshipIndex: try toManyRelationshipIndex(key).0)
    }

    /// Replaces the targets of the to-many relationship at `index` of the entity: what
    /// ``setObjects(_:for:)`` does once the key is found and checked to be to-many.
    func setObjects(_ targets: [ManagedObject], atRelationshipIndex index: Int) throws {
        let relationship = entity.relationships[index]
        try checkWritable()
        for target in targets { try checkTarget(target, of: relationship) }
        fulfill()
        var seen: Set<ObjectID> = []
        let newIDs = targets.map(\.objectID).filter { seen.insert($0).inserted }
        let oldIDs = relationshipValues[index].targets
        if oldIDs == newIDs { return }
        let removed = Set(oldIDs).subtracting(newIDs)
        let added = Set(newIDs).subtracting(oldIDs)
        for id in oldIDs where removed.contains(id) {
            context?.object(with: id).unlink(objectID, fromInverseOf: relationship)
        }
        for target in targets where added.contains(target.objectID) {
            target.link(objectID, intoInverseOf: relationship)
        }
        setTargets(newIDs, at: index)
    }

    /// Adds `target` to the to-many relationship `key` (at the end when ordered), keeping its
    /// inverse in step; nothing changes when it is there already.
    ///
    /// Complexity: O(log n) for an unordered relationship of n targets, plus the shift of the
    /// IDs after its place (none for a new object, which sorts after saved ones); O(n) for an
    /// ordered one. The other targets are not loaded.
    public func add(_ target: ManagedObject, to key: String) throws {
        checkConfinement()
        let (index, relationship) = try toManyRelationshipIndex(key)
        try checkWritable()
        try checkTarget(target, of: relationship)
        fulfill()
        guard !holds(target.objectID, at: index, ordered: relationship.isOrdered) else { return }
        target.link(objectID, intoInverseOf: relationship)
        insertTarget(target.objectID, at: index, ordered: relationship.isOrdered)
    }

    /// Removes `target` from the to-many relationship `key`, keeping its inverse in step;
    /// nothing changes when it is not there.
    ///
    /// Complexity: as ``add(_:to:)``.
    public func remove(_ target: ManagedObject, from key: String) throws {
        checkConfinement()
        let (index, relationship) = try toManyRelationshipIndex(key)
        try checkWritable()
        fulfill()
        guard holds(target.objectID, at: index, ordered: relationship.isOrdered) else { return }
        target.unlink(objectID, fromInverseOf: relationship)
        removeTarget(target.objectID, at: index, ordered: relationship.isOrdered)
    }

    /// The index of the to-many relationship `key`; a to-one `key` is a typed error.
    private func toManyRelationshipIndex(_ key: String) throws -> (Int, Relationship) {
        let (index, relationship) = try relationshipIndex(key)
        guard relationship.isToMany else {
            throw StrataError(
                .typeMismatch, "'\(entity.name).\(key)' is to-one; use setObject(_:for:)",
                location: ["entity": entity.name, "key": key])
        }
        return (index, relationship)
    }

    /// Whether the to-many relationship at `index` holds `id`: by binary search when unordered.
    private func holds(_ id: ObjectID, at index: Int, ordered: Bool) -> Bool {
        let ids = relationshipValues[index].targets
        if ordered { return ids.contains(id) }
        let position = ids.sortedInsertionPoint(of: id)
        return position < ids.count && ids[position] == id
    }

    func relationshipIndex(_ key: String) throws -> (Int, Relationship) {
        guard let index = entity.relationshipIndex(named: key) else {
            let hint = entity.attributeIndex(named: key) != nil ? "; it is an attribute" : ""
            throw StrataError(
                .unknownKey, "'\(entity.name)' has no relationship '\(key)'\(hint)",
                location: ["entity": entity.name, "key": key])
        }
        return (index, entity.relationships[index])
    }

    private func checkTarget(_ target: ManagedObject, of relationship: Relationship) throws {
        guard target.entity.name == relationship.destination else {
            throw StrataError(
                .typeMismatch,
                "'\(entity.name).\(relationship.name)' holds \(relationship.destination) objects, not \(target.objectID)",
                location: ["entity": entity.name, "key": relationship.name])
        }
        guard let context, target.context === context else {
            throw StrataError(
                .invalidObjectID,
                "\(target.objectID) belongs to another context than \(objectID); fetch it in this context with object(with:)",
                location: ["entity": entity.name, "key": relationship.name])
        }
        try target.checkWritable()
    }

    /// Sets the targets at `index`, keeping unordered to-many sorted by ID.
    func setTargets(_ ids: [ObjectID], at index: Int) {
        let relationship = entity.relationships[index]
        context?.willChange(self, slots: ChangeSet.relationshipSlot)
        if relationship.isToMany {
            relationshipValues[index] = .toMany(relationship.isOrdered ? ids : ids.sorted())
        } else {
            relationshipValues[index] = .toOne(ids.first)
        }
        state.isDirty = true
    }

    /// The inverse of `relationship` (declared on `self`'s side) adds `source`.
    func link(_ source: ObjectID, intoInverseOf relationship: Relationship) {
        guard let (index, inverse) = try? relationshipIndex(relationship.inverse) else { return }
        fulfill()
        if inverse.isToMany {
            insertTarget(source, at: index, ordered: inverse.isOrdered)
        } else {
            // One-to-one: detach our previous partner first.
            if let previous = relationshipValues[index].targets.first, previous != source,
                let other = context?.object(with: previous)
            {
                if let (otherIndex, _) = try? other.relationshipIndex(relationship.name) {
                    other.fulfill()
                    other.setTargets(
                        other.relationshipValues[otherIndex].targets.filter { $0 != objectID }, at: otherIndex)
                }
            }
            setTargets([source], at: index)
        }
    }

    /// The inverse of `relationship` (declared on `self`'s side) drops `source`.
    func unlink(_ source: ObjectID, fromInverseOf relationship: Relationship) {
        guard let (index, inverse) = try? relationshipIndex(relationship.inverse) else { return }
        fulfill()
        if inverse.isToMany {
            removeTarget(source, at: index, ordered: inverse.isOrdered)
        } else if relationshipValues[index].targets.first == source {
            setTargets([], at: index)
        }
    }

    /// Adds `id` to the to-many relationship at `index`, in place: at the end when ordered, at
    /// its place by ID otherwise (found by binary search; the end for a newly inserted object,
    /// whose temporary ID sorts after every other). O(log n) plus the shift of the elements
    /// after it, so linking many objects to one target stays linear overall.
    func insertTarget(_ id: ObjectID, at index: Int, ordered: Bool) {
        guard case .toMany(var ids) = relationshipValues[index] else { return }
        let position = ordered ? ids.count : ids.sortedInsertionPoint(of: id)
        if ordered ? ids.contains(id) : (position < ids.count && ids[position] == id) { return }
        context?.willChange(self, slots: ChangeSet.relationshipSlot)
        relationshipValues[index] = .toMany([])
        ids.insert(id, at: position)
        relationshipValues[index] = .toMany(ids)
        state.isDirty = true
    }

    /// Removes `id` from the to-many relationship at `index`, in place.
    func removeTarget(_ id: ObjectID, at index: Int, ordered: Bool) {
        guard case .toMany(var ids) = relationshipValues[index] else { return }
        let found: Int?
        if ordered {
            found = ids.firstIndex(of: id)
        } else {
            let position = ids.sortedInsertionPoint(of: id)
            found = position < ids.count && ids[position] == id ? position : nil
        }
        guard let found else { return }
        context?.willChange(self, slots: ChangeSet.relationshipSlot)
        relationshipValues[index] = .toMany([])
        ids.remove(at: found)
        relationshipValues[index] = .toMany(ids)
        state.isDirty = true
    }

    /// Whether any relationship holds a temporary ID (an inserted object not saved yet).
    var hasTemporaryTargets: Bool {
        relationshipValues.contains { value in
            switch value {
            case .toOne(let id): return id?.isTemporary ?? false
            case .toMany(let ids): return ids.contains { $0.isTemporary }
            }
        }
    }
}

extension Array where Element == ObjectID {
    /// The first position whose ID is not less than `id`, in an array sorted by ID.
    func sortedInsertionPoint(of id: ObjectID) -> Int {
        if let last = self.last, last < id { return count }
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
