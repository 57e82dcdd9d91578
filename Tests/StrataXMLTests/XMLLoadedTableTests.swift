import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataXML

/// A loaded store keeps its tables column by column and a save keeps rows as they came; these
/// tests run random saves against both forms (reopening between saves) and compare every fetch
/// with a plain model of what the store must hold.
@Suite struct XMLLoadedTableTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomSavesOnLoadedAndSavedTablesMatchAPlainModel(seed: UInt64) throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var model = ReferenceModel(seed: seed)
        var store = try openStore(dir.url())
        for round in 0..<10 {
            // Reopening turns every table into columns; not reopening keeps a saved table's rows.
            if round == 0 || model.random(3) != 0 {
                try store.close()
                store = try openStore(dir.url())
                try model.expectMatches(store, "after reopening, before round \(round)")
            }
            let request = try model.randomSave(on: store)
            try store.save(request)
            model.apply(request)
            try model.expectMatches(store, "after round \(round)")
        }
        try store.close()
        try model.expectMatches(try openStore(dir.url()), "after the last reopening")
    }

    @Test func countsAndObjectIDsOfALoadedTableMatchItsSnapshots() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        let ids = try store.obtainPermanentIDs(for: "Item", count: 12)
        try store.save(
            SaveRequest(
                inserts: ids.enumerated().map { itemSnapshot($1, name: "n\($0)", ["i32": .integer(Int64($0 % 4))]) }))
        try store.close()
        let loaded = try openStore(dir.url())
        let wanted = [ids[7], ids[2], ids[7], ids[11]]
        for (offset, limit, objectIDs) in [
            (0, nil, nil), (3, 4, nil), (20, nil, nil), (1, 1, wanted), (0, nil, wanted),
        ] as [(Int, Int?, [ObjectID]?)] {
            let plain = FetchRequest(entityName: "Item", objectIDs: objectIDs)
            var request = FetchRequest(entityName: "Item", limit: limit, offset: offset, objectIDs: objectIDs)
            let all = try loaded.fetch(plain).snapshots()
            let start = min(offset, all.count)
            let end = limit.map { min(start + $0, all.count) } ?? all.count
            let page = Array(all[start..<end])
            request.resultType = .snapshots
            #expect(try loaded.fetch(request).snapshots() == page)
            request.resultType = .objectIDs
            #expect(try loaded.fetch(request).objectIDs() == page.map(\.objectID))
            request.resultType = .count
            #expect(try loaded.fetch(request).count() == page.count)
        }
        #expect(
            try loaded.fetch(FetchRequest(entityName: "Item", objectIDs: wanted)).objectIDs() == [
                ids[2], ids[7], ids[11],
            ])
        let filtered = FetchRequest(
            entityName: "Item", predicate: try ObjectPredicate(format: "i32 == 3"), resultType: .count)
        #expect(try loaded.fetch(filtered).count() == 3)
    }

    @Test func theLargestPossibleKeyLoadsAndLeavesNoKeyToHandOut() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        try openStore(dir.url()).close()
        let path = dir.file("store.xml")
        let text = String(decoding: contents(path), as: UTF8.self)
            .replacingOccurrences(
                of: "</strata-store>",
                with: "<Item _pk=\"\(Int64.max)\" _version=\"1\" name=\"last\"/>\n</strata-store>")
        write(text, to: path)
        let store = try openStore(dir.url())
        let fetched = try store.fetch(FetchRequest(entityName: "Item")).snapshots()
        #expect(fetched.map(\.objectID.primaryKey) == [Int64.max])
        let error = strataError { _ = try store.obtainPermanentIDs(for: "Item", count: 1) }
        #expect(error?.message.contains("exhausted") == true)
    }

    @Test func aStringWithAnAmpersandOrBeyondASCIIReadsBackExactlyFromTheColumns() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try openStore(dir.url())
        let texts = [
            "", "a", "&", "&amp;", "12345678&", "1234567&8", "é", "plain ascii text, long enough for words", "x\u{7F}y",
            "日本語 & <tags>",
        ]
        let ids = try store.obtainPermanentIDs(for: "Item", count: texts.count)
        try store.save(
            SaveRequest(inserts: zip(ids, texts).map { itemSnapshot($0, name: $1, ["str": .string($1 + $1)]) }))
        try store.close()
        let fetched = try openStore(dir.url()).fetch(FetchRequest(entityName: "Item")).snapshots()
        let item = TestModels.item
        #expect(fetched.map { $0.value(of: "name", in: item) } == texts.map { .string($0) })
        #expect(fetched.map { $0.value(of: "str", in: item) } == texts.map { .string($0 + $0) })
    }
}

/// What the store must hold after each save, kept as plain snapshots, and the random saves.
struct ReferenceModel {
    var generator: SeededGenerator
    /// Every object, by entity name and key.
    var objects: [String: [Int64: Snapshot]] = ["Item": [:], "Department": [:], "Employee": [:]]
    /// Keys handed out and not saved yet, by entity name (saved later, they land between
    /// stored keys).
    var spare: [String: [ObjectID]] = ["Item": [], "Department": [], "Employee": []]
    let schema = TestModels.allTypes

    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    /// A number in `0..<bound`.
    mutating func random(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }

    /// A save of random inserts, updates and deletes of every entity.
    mutating func randomSave(on store: XMLStore) throws -> SaveRequest {
        var request = SaveRequest()
        var deleted: Set<ObjectID> = []
        for name in ["Item", "Department", "Employee"] {
            for snapshot in objects[name]!.sorted(by: { $0.key < $1.key }).map(\.value) where random(6) == 0 {
                request.deletes.append(SaveRequest.Delete(snapshot.objectID, expectedVersion: snapshot.version))
                deleted.insert(snapshot.objectID)
            }
        }
        // The objects that exist once the save is done, for the relationships to point at.
        var inserted: [String: [ObjectID]] = [:]
        for name in ["Item", "Department", "Employee"] {
            let fresh = try store.obtainPermanentIDs(for: name, count: random(name == "Item" ? 30 : 8))
            var now: [ObjectID] = []
            for id in fresh { if random(4) == 0 { spare[name]!.append(id) } else { now.append(id) } }
            let takeSpare = spare[name]!.filter { _ in random(2) == 0 }
            spare[name]!.removeAll { takeSpare.contains($0) }
            inserted[name] = (now + takeSpare).shuffled(using: &generator)
        }
        func targets(_ name: String) -> [ObjectID] {
            objects[name]!.values.map(\.objectID).filter { !deleted.contains($0) } + inserted[name]!
        }
        let departments = targets("Department")
        let employees = targets("Employee")
        for name in ["Item", "Department", "Employee"] {
            for id in inserted[name]! {
                request.inserts.append(randomSnapshot(id, departments: departments, employees: employees))
            }
            for (_, snapshot) in objects[name]!.sorted(by: { $0.key < $1.key })
            where !deleted.contains(snapshot.objectID) && random(4) == 0 {
                request.updates.append(
                    SaveRequest.Update(
                        randomSnapshot(snapshot.objectID, departments: departments, employees: employees),
                        expectedVersion: snapshot.version))
            }
        }
        makeInversesAgree(&request, deleted: deleted)
        return request
    }

    /// Makes both sides of every relationship agree once `request` is saved, as the engine keeps
    /// them (the loader refuses a file whose sides disagree): the employees' to-ones decide, and
    /// every department whose lists change is saved with them (an ordered list keeps its order,
    /// new members last).
    func makeInversesAgree(_ request: inout SaveRequest, deleted: Set<ObjectID>) {
        let employee = schema.entity(named: "Employee")!
        let department = schema.entity(named: "Department")!
        let toOnes = [employee.relationshipIndex(named: "department")!, employee.relationshipIndex(named: "rankedIn")!]
        let toManys = [
            department.relationshipIndex(named: "employees")!, department.relationshipIndex(named: "ranking")!,
        ]
        var employees: [ObjectID: Snapshot] = [:]
        for snapshot in objects["Employee"]!.values where !deleted.contains(snapshot.objectID) {
            employees[snapshot.objectID] = snapshot
        }
        for snapshot in request.inserts + request.updates.map(\.snapshot)
        where snapshot.objectID.entityName == "Employee" { employees[snapshot.objectID] = snapshot }
        // For each of the two pairs, the members of each department.
        var members: [[ObjectID: Set<ObjectID>]] = [[:], [:]]
        for (id, snapshot) in employees {
            for (pair, r) in toOnes.enumerated() {
                if case .toOne(let target?) = snapshot.relationships[r], !deleted.contains(target) {
                    members[pair][target, default: []].insert(id)
                }
            }
        }
        func lists(_ id: ObjectID, before: Snapshot?) -> [RelationshipValue] {
            toManys.indices.map { pair in
                let now = members[pair][id] ?? []
                let kept = (before?.relationships[toManys[pair]].targets ?? []).filter { now.contains($0) }
                var seen = Set(kept)
                let added = now.filter { seen.insert($0).inserted }.sorted { $0.primaryKey! < $1.primaryKey! }
                return pair == 0
                    ? .toMany(Array(now).sorted { $0.primaryKey! < $1.primaryKey! }) : .toMany(kept + added)
            }
        }
        var inRequest: Set<ObjectID> = []
        for i in request.inserts.indices where request.inserts[i].objectID.entityName == "Department" {
            let id = request.inserts[i].objectID
            for (pair, value) in lists(id, before: nil).enumerated() {
                request.inserts[i].relationships[toManys[pair]] = value
            }
            inRequest.insert(id)
        }
        for i in request.updates.indices where request.updates[i].snapshot.objectID.entityName == "Department" {
            let id = request.updates[i].snapshot.objectID
            for (pair, value) in lists(id, before: objects["Department"]![id.primaryKey!]).enumerated() {
                request.updates[i].snapshot.relationships[toManys[pair]] = value
            }
            inRequest.insert(id)
        }
        for (_, stored) in objects["Department"]!.sorted(by: { $0.key < $1.key })
        where !deleted.contains(stored.objectID) && !inRequest.contains(stored.objectID) {
            var changed = stored
            for (pair, value) in lists(stored.objectID, before: stored).enumerated() {
                changed.relationships[toManys[pair]] = value
            }
            let current = stored.relationships.map {
                RelationshipValue.toMany($0.targets.filter { !deleted.contains($0) })
            }
            if changed.relationships != current {
                request.updates.append(SaveRequest.Update(changed, expectedVersion: stored.version))
            }
        }
    }

    /// A snapshot of `id` with random values and targets among `departments` and `employees`.
    mutating func randomSnapshot(_ id: ObjectID, departments: [ObjectID], employees: [ObjectID]) -> Snapshot {
        let entity = schema.entity(named: id.entityName)!
        var snapshot = Snapshot(objectID: id, entity: entity)
        for (a, attribute) in entity.attributes.enumerated() {
            if attribute.name == "badge" {
                snapshot.attributes[a] = random(3) == 0 ? .null : .integer(id.primaryKey! % 1_000_000_000)
            } else if attribute.isOptional && random(4) == 0 {
                snapshot.attributes[a] = .null
            } else {
                snapshot.attributes[a] = randomValue(attribute.type)
            }
        }
        for (r, relationship) in entity.relationships.enumerated() {
            let pool = relationship.destination == "Department" ? departments : employees
            if relationship.isToMany {
                snapshot.relationships[r] = .toMany(
                    (0..<random(4)).compactMap { _ in pool.isEmpty ? nil : pool[random(pool.count)] })
            } else {
                snapshot.relationships[r] = .toOne(pool.isEmpty || random(3) == 0 ? nil : pool[random(pool.count)])
            }
        }
        return snapshot
    }

    /// A random value of `type`, including the texts the format escapes or writes in base64.
    mutating func randomValue(_ type: AttributeType) -> Value {
        switch type {
        case .integer16: return .integer(Int64(Int16.min) + Int64(random(65_536)))
        case .integer32: return .integer(Int64(Int32(truncatingIfNeeded: generator.next())))
        case .integer64:
            return [.integer(.min), .integer(.max), .integer(Int64(bitPattern: generator.next()))][random(3)]
        case .double: return .double(Double(bitPattern: generator.next()))
        case .float: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: generator.next())))
        case .decimal:
            return .decimal(Decimal(string: "\(Int64(bitPattern: generator.next()) % 1_000_000).\(random(1000))")!)
        case .string:
            let pieces = [
                "a", "bc", "&", "<", ">", "\"", "'", "é", "日本", "🦊", " ", "\t", "\n", "\r", "&amp;", "\u{1}",
                "\u{FFFE}", "xyz0123456789",
            ]
            return .string((0..<random(12)).map { _ in pieces[random(pieces.count)] }.joined())
        case .boolean: return .bool(random(2) == 0)
        case .date:
            return .date(
                Date(timeIntervalSinceReferenceDate: Double(Int64(bitPattern: generator.next()) % 4_000_000_000) / 7))
        case .binary: return .binary(Data((0..<random(20)).map { _ in UInt8(random(256)) }))
        case .uuid:
            let hex = String(format: "%016llX%016llX", generator.next(), generator.next())
            let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
                String(hex.utf8.dropFirst(range.lowerBound).prefix(range.count))!
            }
            return .uuid(UUID(uuidString: parts.joined(separator: "-"))!)
        case .uri: return .uri(URL(string: "https://example.com/\(random(1000))?a=\(random(9))&b=<\(random(9))>")!)
        }
    }

    /// Applies `request` (which the store accepted) to the model, as the store must.
    mutating func apply(_ request: SaveRequest) {
        for delete in request.deletes { objects[delete.objectID.entityName]![delete.objectID.primaryKey!] = nil }
        for insert in request.inserts {
            objects[insert.objectID.entityName]![insert.objectID.primaryKey!] = stored(insert, version: 1)
        }
        for update in request.updates {
            objects[update.snapshot.objectID.entityName]![update.snapshot.objectID.primaryKey!] = stored(
                update.snapshot, version: update.expectedVersion + 1)
        }
        // References to deleted objects disappear from every object the request does not hold.
        let gone = Set(request.deletes.map(\.objectID))
        for (name, byKey) in objects {
            for (key, var snapshot) in byKey {
                let before = snapshot.relationships
                snapshot.relationships = snapshot.relationships.map { value in
                    switch value {
                    case .toOne(let target): return .toOne(target.flatMap { gone.contains($0) ? nil : $0 })
                    case .toMany(let targets): return .toMany(targets.filter { !gone.contains($0) })
                    }
                }
                if snapshot.relationships != before { objects[name]![key] = snapshot }
            }
        }
    }

    /// `snapshot` as the store keeps it: at `version`, an unordered to-many sorted by key once.
    func stored(_ snapshot: Snapshot, version: Int64) -> Snapshot {
        var result = snapshot
        result.version = version
        let entity = schema.entity(named: snapshot.objectID.entityName)!
        for (r, relationship) in entity.relationships.enumerated()
        where relationship.isToMany && !relationship.isOrdered {
            var seen: Set<Int64> = []
            let keys = result.relationships[r].targets.sorted { $0.primaryKey! < $1.primaryKey! }.filter {
                seen.insert($0.primaryKey!).inserted
            }
            result.relationships[r] = .toMany(keys)
        }
        return result
    }

    /// Records an issue for every difference between the store's snapshots and the model.
    func expectMatches(_ store: XMLStore, _ when: String) throws {
        for name in ["Item", "Department", "Employee"] {
            let fetched = try store.fetch(FetchRequest(entityName: name)).snapshots()
            let expected = objects[name]!.sorted { $0.key < $1.key }.map(\.value)
            #expect(fetched.map(\.objectID) == expected.map(\.objectID), "\(name) IDs \(when)")
            for (got, want) in zip(fetched, expected) where got != want {
                Issue.record("\(name) \(want.objectID.primaryKey!) \(when): got \(got), want \(want)")
            }
            #expect(try store.fetch(FetchRequest(entityName: name, resultType: .count)).count() == expected.count)
        }
    }
}
