import StrataCore

/// Checks a loaded graph's relationships: every target names an object in the file, every
/// relationship agrees with its inverse, and no to-many lists an object twice.
///
/// A file holds both sides of every relationship, so a hand edit (or another tool) can make them
/// disagree: `Employee 2.department="1"` while Department 1's `employees` does not list 2, or a
/// to-many listing one object twice. The loader refuses such a file rather than hand the engine
/// a graph whose two sides answer differently.
///
/// One pass over each relationship column, with one binary search per target (the lookup that
/// checking the target exists costs anyway), and per kind of pair:
/// - to-one and to-one: the target's inverse is this object (each side checks its own targets);
/// - to-many and to-one (checked from the to-many side): each listed object's to-one is the list's
///   holder; a row set over the to-one's entity catches an object listed twice; and as many
///   objects are listed as have the to-one set, so every to-one is listed back;
/// - to-many and to-many (checked once per pair): the `(object, target)` pairs of both sides,
///   sorted, are the same, with none twice. O(pairs log pairs), for these pairs only.
///
/// A missing target is reported before any disagreement, so its message stays the one that
/// names the real cause.
struct XMLRelationshipCheck {
    /// A problem found: the object (by entity and sorted row) and relationship it is about.
    struct Problem {
        let entity: Int
        let row: Int
        let relationship: Int
        let message: String
    }

    let layout: XMLModelLayout
    let tables: [EntityTable]

    /// The first missing target, else the first disagreement, else `nil`.
    func firstProblem() -> Problem? {
        var firstMismatch: Problem?
        for (e, entityLayout) in layout.entities.enumerated() {
            for r in entityLayout.entity.relationships.indices {
                switch check(entity: e, relationship: r) {
                case .missing(let problem): return problem
                case .mismatch(let problem): if firstMismatch == nil { firstMismatch = problem }
                case .none: break
                }
            }
        }
        return firstMismatch
    }

    private enum Outcome {
        case none
        case missing(Problem)
        case mismatch(Problem)
    }

    /// Relationship `r` of entity `e`, a sorted row of each, and their keys.
    private struct Side {
        let entity: Int
        let relationship: Int
        let keys: [Int64]
        let column: XMLRelationshipColumn
        let entityName: String
        let name: String
    }

    private func side(_ e: Int, _ r: Int) -> Side {
        let table = tables[e]
        let entity = layout.entities[e].entity
        return Side(
            entity: e, relationship: r, keys: table.keys,
            column: table.relationshipColumn(r, isToMany: entity.relationships[r].isToMany), entityName: entity.name,
            name: entity.relationships[r].name)
    }

    private func check(entity e: Int, relationship r: Int) -> Outcome {
        let entity = layout.entities[e].entity
        let relationship = entity.relationships[r]
        let d = layout.entities[e].destinations[r]
        // The model guarantees every relationship an inverse on its destination.
        guard let ir = layout.entities[d].entity.relationshipIndex(named: relationship.inverse) else { return .none }
        let own = side(e, r)
        let inverse = side(d, ir)
        switch (relationship.isToMany, inverse.column.isToMany) {
        case (false, false): return checkOneToOne(own, inverse)
        case (false, true): return checkTargetsExist(own, inverse)
        case (true, false): return checkToManyAgainstToOne(own, inverse)
        case (true, true):
            // Once per pair: from the side that comes first.
            if (d, ir) < (e, r) { return checkTargetsExist(own, inverse) }
            return checkManyToMany(own, inverse)
        }
    }

    // MARK: Messages

    private func missing(_ own: Side, row i: Int, target: Int64, destination: Side) -> Outcome {
        .missing(
            Problem(
                entity: own.entity, row: i, relationship: own.relationship,
                message:
                    "\(own.entityName) \(own.keys[i]).\(own.name) refers to \(destination.entityName) \(target), which does not exist in the file"
            ))
    }

    private func mismatch(_ side: Side, row i: Int, _ text: String) -> Outcome {
        .mismatch(
            Problem(
                entity: side.entity, row: i, relationship: side.relationship,
                message:
                    "\(side.entityName) \(side.keys[i]).\(side.name) \(text); a relationship and its inverse must agree"
            ))
    }

    /// What the to-one `side` holds at row `j`, for a message.
    private func describeToOne(_ side: Side, row j: Int, destination: Side) -> String {
        side.column.nulls.contains(j) ? "empty" : "\(destination.entityName) \(side.column.targets[j])"
    }

    // MARK: The kinds of pairs

    /// Every target of `own` exists (the other side checks the agreement).
    private func checkTargetsExist(_ own: Side, _ inverse: Side) -> Outcome {
        let column = own.column
        if column.isToMany {
            var start = 0
            for i in column.ends.indices {
                let end = column.ends[i]
                for k in start..<end where EntityTable.index(of: column.targets[k], in: inverse.keys) == nil {
                    return missing(own, row: i, target: column.targets[k], destination: inverse)
                }
                start = end
            }
        } else {
            for i in column.targets.indices
            where !column.nulls.contains(i) && EntityTable.index(of: column.targets[i], in: inverse.keys) == nil {
                return missing(own, row: i, target: column.targets[i], destination: inverse)
            }
        }
        return .none
    }

    /// A to-one whose inverse is a to-one: `a.r = b` means `b.inverse = a`.
    private func checkOneToOne(_ own: Side, _ inverse: Side) -> Outcome {
        let column = own.column
        let back = inverse.column
        var first: Outcome = .none
        for i in column.targets.indices where !column.nulls.contains(i) {
            let target = column.targets[i]
            guard let j = EntityTable.index(of: target, in: inverse.keys) else {
                return missing(own, row: i, target: target, destination: inverse)
            }
            if case .none = first, back.nulls.contains(j) || back.targets[j] != own.keys[i] {
                first = mismatch(
                    own, row: i,
                    "is \(inverse.entityName) \(target), but \(inverse.entityName) \(target).\(inverse.name) is \(describeToOne(inverse, row: j, destination: own))"
                )
            }
        }
        return first
    }

    /// A to-many whose inverse is a to-one: each listed object's to-one is the holder, no object
    /// is listed twice, and every object whose to-one is set is listed.
    private func checkToManyAgainstToOne(_ own: Side, _ inverse: Side) -> Outcome {
        let column = own.column
        let back = inverse.column
        var listed = XMLRowSet(count: inverse.keys.count)
        var listedCount = 0
        var first: Outcome = .none
        var start = 0
        for i in column.ends.indices {
            let end = column.ends[i]
            let holder = own.keys[i]
            for k in start..<end {
                let target = column.targets[k]
                guard let j = EntityTable.index(of: target, in: inverse.keys) else {
                    return missing(own, row: i, target: target, destination: inverse)
                }
                guard case .none = first else { continue }
                if back.nulls.contains(j) || back.targets[j] != holder {
                    first = mismatch(
                        own, row: i,
                        "lists \(inverse.entityName) \(target), but \(inverse.entityName) \(target).\(inverse.name) is \(describeToOne(inverse, row: j, destination: own))"
                    )
                } else if !listed.insert(j) {
                    // `target`'s to-one is this holder, so the other listing is in this list too.
                    first = mismatch(own, row: i, "lists \(inverse.entityName) \(target) twice")
                } else {
                    listedCount += 1
                }
            }
            start = end
        }
        guard case .none = first else { return first }
        let set = back.targets.count - back.nulls.count
        guard listedCount != set else { return .none }
        for j in back.targets.indices where !back.nulls.contains(j) && !listed.contains(j) {
            let holder = back.targets[j]
            return mismatch(
                inverse, row: j,
                "is \(own.entityName) \(holder), but \(own.entityName) \(holder).\(own.name) does not list \(inverse.entityName) \(inverse.keys[j])"
            )
        }
        return .none
    }

    /// The (holder row, target row) pairs that `side`'s to-many lists, in list order, or the
    /// outcome for the first target `other` does not hold.
    private func listedPairs(_ side: Side, in other: Side) -> ([(Int, Int)], Outcome?) {
        var pairs: [(Int, Int)] = []
        pairs.reserveCapacity(side.column.targets.count)
        var start = 0
        for holder in side.column.ends.indices {
            let end = side.column.ends[holder]
            for k in start..<end {
                let target = side.column.targets[k]
                guard let row = EntityTable.index(of: target, in: other.keys) else {
                    return ([], missing(side, row: holder, target: target, destination: other))
                }
                pairs.append((holder, row))
            }
            start = end
        }
        return (pairs, nil)
    }

    /// A to-many whose inverse is a to-many (possibly itself): both list the same pairs, once.
    private func checkManyToMany(_ own: Side, _ inverse: Side) -> Outcome {
        // (row of the object in `own`'s entity, row of the object in the inverse's entity).
        let (pairsListed, ownMissing) = listedPairs(own, in: inverse)
        if let ownMissing { return ownMissing }
        let (inverseListed, inverseMissing) = listedPairs(inverse, in: own)
        if let inverseMissing { return inverseMissing }
        var pairs = pairsListed
        var inversePairs = inverseListed.map { ($0.1, $0.0) }
        pairs.sort { $0 < $1 }
        inversePairs.sort { $0 < $1 }
        for n in pairs.indices.dropFirst() where pairs[n] == pairs[n - 1] {
            let (i, j) = pairs[n]
            return mismatch(own, row: i, "lists \(inverse.entityName) \(inverse.keys[j]) twice")
        }
        for n in inversePairs.indices.dropFirst() where inversePairs[n] == inversePairs[n - 1] {
            let (i, j) = inversePairs[n]
            return mismatch(inverse, row: j, "lists \(own.entityName) \(own.keys[i]) twice")
        }
        var a = 0
        var b = 0
        while a < pairs.count || b < inversePairs.count {
            if b == inversePairs.count || (a < pairs.count && pairs[a] < inversePairs[b]) {
                let (i, j) = pairs[a]
                return mismatch(
                    own, row: i,
                    "lists \(inverse.entityName) \(inverse.keys[j]), but \(inverse.entityName) \(inverse.keys[j]).\(inverse.name) does not list \(own.entityName) \(own.keys[i])"
                )
            }
            if a == pairs.count || inversePairs[b] < pairs[a] {
                let (i, j) = inversePairs[b]
                return mismatch(
                    inverse, row: j,
                    "lists \(own.entityName) \(own.keys[i]), but \(own.entityName) \(own.keys[i]).\(own.name) does not list \(inverse.entityName) \(inverse.keys[j])"
                )
            }
            a += 1
            b += 1
        }
        return .none
    }
}

/// A set of row indexes below a fixed count: one bit per row.
struct XMLRowSet {
    private var words: [UInt64]

    /// An empty set for rows `0..<count`.
    init(count: Int) { words = Array(repeating: 0, count: (count + 63) / 64) }

    /// Whether `row` is in the set. O(1).
    func contains(_ row: Int) -> Bool { words[row &>> 6] & (1 &<< UInt64(row & 63)) != 0 }

    /// Adds `row`; returns false when it was already there. O(1).
    mutating func insert(_ row: Int) -> Bool {
        let bit: UInt64 = 1 &<< UInt64(row & 63)
        let w = row &>> 6
        if words[w] & bit != 0 { return false }
        words[w] |= bit
        return true
    }
}
