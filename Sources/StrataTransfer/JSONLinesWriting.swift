import Foundation
import StrataCore

/// The writing pass of an import, once the checking pass has accepted every line: inserts the
/// objects in batches, in file order, then sets the relationships that named objects of later
/// batches, then puts ordered relationships back in order where a store writes a link from one
/// side only (as ``StoreCopier`` does, and for the same reasons).
struct JSONLinesWriting {
    let plan: JSONLinesPlan
    let store: any PersistentStore
    let source: String
    let batchSize: Int
    /// Per object number: its primary key once inserted, `Int64.min` before.
    private var keys: [Int64]
    /// How many objects are inserted.
    private(set) var insertedCount = 0
    /// The lines of objects inserted without some of their links, in file order.
    private var unlinkedLines: [Int32] = []
    /// `Entity.relationship` of the inverses of the relationships left out at insert.
    private var unlinkedInverses: Set<String> = []

    private typealias Item = (line: Int, number: Int, object: JSONLinesObject)

    init(plan: JSONLinesPlan, store: any PersistentStore, source: String, batchSize: Int) {
        self.plan = plan
        self.store = store
        self.source = source
        self.batchSize = batchSize
        keys = Array(repeating: Int64.min, count: plan.catalog.count)
    }

    /// Reads `input` again and writes its objects.
    /// `inserted` is called after each batch with the objects inserted so far.
    mutating func write(_ input: JSONLinesInput, inserted: (Int) -> Void = { _ in }) throws {
        var batch: [Item] = []
        try input.forEachLine { line in
            batch.append(try item(line))
            if batch.count == batchSize {
                try insert(batch)
                batch.removeAll(keepingCapacity: true)
                inserted(insertedCount)
            }
        }
        if !batch.isEmpty {
            try insert(batch)
            inserted(insertedCount)
        }
        guard insertedCount == plan.catalog.count else { throw changed() }

        if !unlinkedLines.isEmpty {
            var next = 0
            let lines = unlinkedLines
            try relink(
                input,
                isWantedLine: { line in
                    guard next < lines.count, lines[next] == line else { return false }
                    next += 1
                    return true
                })
        }
        let reordered = Set(
            plan.model.entities.indices.filter { e in
                let entity = plan.model.entities[e]
                return entity.relationships.contains {
                    $0.isOrdered && unlinkedInverses.contains(entity.name + "." + $0.name)
                }
            })
        if !reordered.isEmpty {
            try relink(input, isWantedEntity: { reordered.contains($0) })
        }
    }

    /// Deletes every object inserted so far (after a failure).
    func removeInserted() throws {
        guard insertedCount > 0 else { return }
        var deletes: [SaveRequest.Delete] = []
        var byEntity: [[Int64]] = Array(repeating: [], count: plan.model.entities.count)
        for number in keys.indices where keys[number] != Int64.min {
            byEntity[plan.catalog.entity(number)!].append(keys[number])
        }
        for (e, entityKeys) in byEntity.enumerated() where !entityKeys.isEmpty {
            let name = plan.model.entities[e].name
            var start = 0
            while start < entityKeys.count {
                let batch = entityKeys[start..<min(start + batchSize, entityKeys.count)].map {
                    ObjectID(entityName: name, storeIdentifier: store.identifier, primaryKey: $0)
                }
                for snapshot in try store.fetch(FetchRequest(entityName: name, objectIDs: batch)).snapshots() {
                    deletes.append(SaveRequest.Delete(snapshot.objectID, expectedVersion: snapshot.version))
                }
                start += batch.count
            }
        }
        try store.save(SaveRequest(deletes: deletes))
    }

    /// Parses `line` again and finds its object.
    private func item(_ line: JSONLinesInput.Line) throws -> Item {
        let object = try JSONLinesObject(line, source: source, model: plan.model, entityIndexes: plan.entityIndexes)
        guard let number = plan.catalog.lookup(object.ref), plan.catalog.line(number) == line.number else {
            throw changed()
        }
        return (line.number, number, object)
    }

    private func changed() -> StrataError {
        StrataError(
            .conflict, "\(source) changed while it was imported (its lines are not those checked)",
            location: ["file": source])
    }

    /// The ID of the object `number` (inserted).
    private func id(_ number: Int) -> ObjectID {
        ObjectID(
            entityName: plan.model.entities[plan.catalog.entity(number)!].name, storeIdentifier: store.identifier,
            primaryKey: keys[number])
    }

    /// The targets of `item`'s relationship `r`, as written or filled from the inverse.
    private func targets(of item: Item, _ r: Int) throws -> [Int] {
        guard let refs = item.object.written[r] else { return plan.links.derivedSources(item.number, r) }
        return try refs.map { ref in
            guard let number = plan.catalog.lookup(ref) else { throw changed() }
            return number
        }
    }

    private func value(_ targets: [Int], _ relationship: Relationship) -> RelationshipValue {
        relationship.isToMany ? .toMany(targets.map(id)) : .toOne(targets.first.map(id))
    }

    /// Inserts one batch: keys from the store, then the objects, with their links to objects
    /// already inserted (some stores refuse a link to an object they do not hold).
    private mutating func insert(_ batch: [Item]) throws {
        var members: [[Int]] = Array(repeating: [], count: plan.model.entities.count)
        for item in batch { members[item.object.entity].append(item.number) }
        for (e, numbers) in members.enumerated() where !numbers.isEmpty {
            let ids = try store.obtainPermanentIDs(for: plan.model.entities[e].name, count: numbers.count)
            for (number, id) in zip(numbers, ids) { keys[number] = id.primaryKey! }
        }
        let lastLine = batch.last!.line
        var inserts: [Snapshot] = []
        inserts.reserveCapacity(batch.count)
        for item in batch {
            let entity = plan.model.entities[item.object.entity]
            var isComplete = true
            var relationships: [RelationshipValue] = []
            relationships.reserveCapacity(entity.relationships.count)
            for (r, relationship) in entity.relationships.enumerated() {
                let all = try targets(of: item, r)
                let held = all.filter { plan.catalog.line($0) <= lastLine }
                if held.count != all.count {
                    isComplete = false
                    unlinkedInverses.insert(relationship.destination + "." + relationship.inverse)
                }
                relationships.append(value(held, relationship))
            }
            if !isComplete { unlinkedLines.append(Int32(clamping: item.line)) }
            inserts.append(
                Snapshot(
                    objectID: id(item.number), version: 0, attributes: item.object.attributes,
                    relationships: relationships))
        }
        try save(SaveRequest(inserts: inserts), batch)
        insertedCount += batch.count
    }

    /// Reads `input` again and updates the objects of the lines picked by line number and by
    /// entity whose stored relationships are not those of their line.
    private func relink(
        _ input: JSONLinesInput, isWantedLine: (Int) -> Bool = { _ in true },
        isWantedEntity: (Int) -> Bool = { _ in true }
    ) throws {
        var batch: [Item] = []
        try input.forEachLine { line in
            guard isWantedLine(line.number) else { return }
            let item = try item(line)
            guard isWantedEntity(item.object.entity) else { return }
            batch.append(item)
            if batch.count == batchSize {
                try update(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try update(batch) }
    }

    private func update(_ batch: [Item]) throws {
        var updates: [SaveRequest.Update] = []
        var members: [[Item]] = Array(repeating: [], count: plan.model.entities.count)
        for item in batch { members[item.object.entity].append(item) }
        for (e, items) in members.enumerated() where !items.isEmpty {
            let entity = plan.model.entities[e]
            let present = try store.fetch(FetchRequest(entityName: entity.name, objectIDs: items.map { id($0.number) }))
                .snapshots()
            guard present.count == items.count else {
                throw StrataError(
                    .conflict, "objects of this import were deleted from \(store.url) while it ran",
                    location: ["url": store.url.description])
            }
            for (item, have) in zip(items, present) {
                var want = have
                want.relationships = try entity.relationships.enumerated().map { r, relationship in
                    value(try targets(of: item, r), relationship)
                }
                if !StoreCopier.sameRelationships(want, have, entity: entity) {
                    updates.append(SaveRequest.Update(want, expectedVersion: have.version))
                }
            }
        }
        if !updates.isEmpty { try save(SaveRequest(updates: updates), batch) }
    }

    /// Saves `request`, naming the line of the object a store error names.
    private func save(_ request: SaveRequest, _ batch: [Item]) throws {
        do {
            try store.save(request)
        } catch var error as StrataError {
            if let named = error.location["object"] ?? error.location["objectID"],
                let item = batch.first(where: { id($0.number).uriRepresentation == named })
            {
                error.message = "line \(item.line): " + error.message
                error.location["line"] = String(item.line)
                error.location["file"] = source
            }
            throw error
        }
    }
}
