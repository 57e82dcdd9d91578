import StrataCore

/// The links of every relationship that has an inverse, as `strata validate` reads them, seen
/// from both sides, so the two sides can be compared once every object has been read.
///
/// For each pair of inverse relationships (`Employee.department` and `Department.employees`)
/// it keeps two sorted lists of `(owner key, target key)` pairs, both in the orientation of the
/// pair's first side: one from the first side's values, one from the second side's values turned
/// around. A link in one list and not in the other is an object whose inverse disagrees.
/// Memory: 16 bytes per link and side.
struct InverseLedger {
    /// One pair of inverse relationships; `first` is the side that sorts first.
    private struct Side: Equatable {
        var entity: String
        var relationship: String
    }

    private struct Pair {
        var first: Side
        var second: Side
        var fromFirst: [Link] = []
        var fromSecond: [Link] = []
    }

    /// A link in the orientation of the pair's first side.
    private struct Link: Comparable {
        var owner: Int64
        var target: Int64
        static func < (a: Link, b: Link) -> Bool { (a.owner, a.target) < (b.owner, b.target) }
    }

    private var pairs: [Pair] = []
    /// Per entity name and relationship index: the pair, whether the relationship is its first
    /// side, and whether it is its own inverse.
    private var sides: [String: [(pair: Int, isFirst: Bool, isOwnInverse: Bool)?]] = [:]

    init(model: Model) {
        var pairIndexes: [String: Int] = [:]
        for entity in model.entities {
            sides[entity.name] = entity.relationships.map { relationship in
                guard let destination = model.entity(named: relationship.destination),
                    destination.relationshipIndex(named: relationship.inverse) != nil
                else { return nil }
                let mine = entity.name + "." + relationship.name
                let theirs = relationship.destination + "." + relationship.inverse
                let isFirst = mine <= theirs
                let isOwnInverse = mine == theirs
                let key = isFirst ? mine + " " + theirs : theirs + " " + mine
                if let pair = pairIndexes[key] { return (pair, isFirst, isOwnInverse) }
                pairIndexes[key] = pairs.count
                let here = Side(entity: entity.name, relationship: relationship.name)
                let there = Side(entity: relationship.destination, relationship: relationship.inverse)
                pairs.append(Pair(first: isFirst ? here : there, second: isFirst ? there : here))
                return (pairs.count - 1, isFirst, isOwnInverse)
            }
        }
    }

    /// Records the links of `snapshot`, an object of `entity`.
    mutating func record(_ snapshot: Snapshot, entity: Entity) {
        guard let owner = snapshot.objectID.primaryKey, let entitySides = sides[entity.name] else { return }
        for (r, value) in snapshot.relationships.enumerated() {
            guard r < entitySides.count, let side = entitySides[r] else { continue }
            for target in value.targets {
                guard let key = target.primaryKey else { continue }
                if side.isFirst {
                    pairs[side.pair].fromFirst.append(Link(owner: owner, target: key))
                }
                // A relationship that is its own inverse is both sides at once.
                if !side.isFirst || side.isOwnInverse {
                    pairs[side.pair].fromSecond.append(Link(owner: key, target: owner))
                }
            }
        }
    }

    /// Every link one side holds and the other does not, as a failure of the object holding it.
    mutating func disagreements(storeIdentifier: String) -> [ValidationFailure] {
        var failures: [ValidationFailure] = []
        for p in pairs.indices {
            // A target listed twice is reported on its own (duplicate members): here it counts once.
            let a = Self.sortedUnique(pairs[p].fromFirst)
            let b = Self.sortedUnique(pairs[p].fromSecond)
            let pair = pairs[p]
            let isOwnInverse = pair.first == pair.second
            func id(_ entity: String, _ key: Int64) -> ObjectID {
                ObjectID(entityName: entity, storeIdentifier: storeIdentifier, primaryKey: key)
            }
            var i = 0
            var j = 0
            while i < a.count || j < b.count {
                if j == b.count || (i < a.count && a[i] < b[j]) {
                    let owner = id(pair.first.entity, a[i].owner)
                    let target = id(pair.second.entity, a[i].target)
                    failures.append(
                        ValidationFailure(
                            objectID: owner, property: pair.first.relationship,
                            reason:
                                "names \(target), whose inverse \(pair.second.entity).\(pair.second.relationship) does not name \(owner)"
                        ))
                    i += 1
                } else if i == a.count || b[j] < a[i] {
                    // For a relationship that is its own inverse this is the same link seen from
                    // its target, already reported.
                    defer { j += 1 }
                    if isOwnInverse { continue }
                    let owner = id(pair.second.entity, b[j].target)
                    let target = id(pair.first.entity, b[j].owner)
                    failures.append(
                        ValidationFailure(
                            objectID: owner, property: pair.second.relationship,
                            reason:
                                "names \(target), whose inverse \(pair.first.entity).\(pair.first.relationship) does not name \(owner)"
                        ))
                } else {
                    i += 1
                    j += 1
                }
            }
            pairs[p].fromFirst = []
            pairs[p].fromSecond = []
        }
        return failures
    }

    private static func sortedUnique(_ links: [Link]) -> [Link] {
        var links = links
        links.sort()
        var kept = 0
        for link in links where kept == 0 || links[kept - 1] != link {
            links[kept] = link
            kept += 1
        }
        links.removeLast(links.count - kept)
        return links
    }
}
