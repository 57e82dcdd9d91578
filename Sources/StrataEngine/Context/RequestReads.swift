import StrataCore

/// What a fetch request reads of the objects of its entity, as ``ChangeSet`` slots: a changed
/// object can change the request's answer only through the slots it reads.
struct RequestReads {
    /// The slots the predicate and sorts read, plus ``ChangeSet/insertedSlot`` (a new object
    /// can match any request).
    private(set) var slots: ChangeSet.Slots = ChangeSet.insertedSlot
    /// Whether a key path goes through a relationship to another object (or names something
    /// the entity does not have): then a change to an object of another entity can change the
    /// answer.
    private(set) var followsRelationships = false

    /// What `request` reads; everything, when `entity` (the request's) is unknown.
    ///
    /// Complexity: O(n) in the predicate's nodes and the sorts, without recursion.
    init(_ request: FetchRequest, entity: Entity?) {
        guard let entity else {
            slots = ChangeSet.allSlots
            followsRelationships = true
            return
        }
        for sort in request.sorts { read(sort.keyPath, of: entity) }
        guard let predicate = request.predicate else { return }
        enum Node {
            case predicate(ObjectPredicate)
            case operand(ObjectPredicate.Operand)
        }
        var pending: [Node] = [.predicate(predicate)]
        while let node = pending.popLast() {
            switch node {
            case .predicate(.alwaysTrue), .predicate(.alwaysFalse):
                continue
            case .predicate(.not(let inner)):
                pending.append(.predicate(inner))
            case .predicate(.and(let parts)), .predicate(.or(let parts)):
                for part in parts { pending.append(.predicate(part)) }
            case .predicate(.comparison(let comparison)):
                pending.append(.operand(comparison.lhs))
                pending.append(.operand(comparison.rhs))
            case .operand(.keyPath(let path)), .operand(.count(let path)):
                read(path, of: entity)
            case .operand(.list(let elements)):
                for element in elements { pending.append(.operand(element)) }
            case .operand(.constant), .operand(.objectID), .operand(.evaluatedObject):
                continue
            }
        }
    }

    /// Notes that `path` is read from objects of `entity`.
    mutating func read(_ path: PropertyPath, of entity: Entity) {
        guard let first = path.components.first else { return }
        if path.components.count == 1, let index = entity.attributeIndex(named: first) {
            slots |= ChangeSet.slot(ofAttribute: index)
            return
        }
        if entity.relationshipIndex(named: first) != nil {
            slots |= ChangeSet.relationshipSlot
            if path.components.count == 1 { return }
        } else {
            slots = ChangeSet.allSlots
        }
        followsRelationships = true
    }
}
