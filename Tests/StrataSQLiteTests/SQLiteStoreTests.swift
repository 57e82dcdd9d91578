import Foundation
import StrataCore
import Testing
@testable import StrataSQLite

@Suite struct SQLiteStoreTests {
    @Test func everyValueTypeRoundTripsExactlyIncludingNaNAndEmptyData() throws {
        let model = try testModel()
        let store = try openStore(temporaryStoreURL(), model: model)
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 3)
        let full = makeSnapshot(ids[0], in: model, [
            "name": "Zoë 中文 Русский \u{0}nul", "age": .integer(Int64(Int32.min)), "height": .double(.nan), "weight": .float(.nan),
            "salary": .decimal(Decimal(string: "12345678901234567890.123456789")!), "active": true,
            "hired": .date(Date(timeIntervalSinceReferenceDate: 123456.789012345)), "photo": .binary(Data()),
            "badge": .uuid(UUID()), "homepage": .uri(URL(string: "https://example.com/a?b=c#d")!),
            "small": .integer(Int64(Int16.max)), "big": .integer(Int64.max),
        ])
        let second = makeSnapshot(ids[1], in: model, [
            "name": "", "height": .double(-.infinity), "weight": .float(Float.leastNonzeroMagnitude),
            "salary": .decimal(.nan), "active": false, "photo": .binary(Data([0, 1, 2, 255])), "big": .integer(Int64.min),
            "hired": .date(Date(timeIntervalSinceReferenceDate: -1e9)),
        ])
        let third = makeSnapshot(ids[2], in: model, ["name": "nulls", "height": .double(0.1), "weight": .float(0.1)])
        let result = try store.save(SaveRequest(inserts: [full, second, third]))
        #expect(result.versions[ids[0]] == 1)
        let fetched = try store.fetch(FetchRequest(entityName: "Employee")).snapshots()
        #expect(fetched.count == 3)
        for (stored, original) in zip(fetched, [full, second, third]) {
            #expect(stored.version == 1)
            #expect(stored.attributes == original.attributes)
        }
        guard case .binary(let photo) = fetched[0].attributes[7] else { Issue.record("photo is not binary"); return }
        #expect(photo.isEmpty)
        #expect(fetched[2].attributes[7] == .null)
    }

    @Test func relationshipsOfEveryKindComeBackOnBothSides() throws {
        let model = try testModel()
        let store = try openStore(temporaryStoreURL(), model: model)
        let d = try store.obtainPermanentIDs(for: "Department", count: 1)[0]
        let e = try store.obtainPermanentIDs(for: "Employee", count: 3)
        let p = try store.obtainPermanentIDs(for: "Project", count: 2)
        let t = try store.obtainPermanentIDs(for: "Task", count: 3)
        let m = try store.obtainPermanentIDs(for: "Milestone", count: 2)
        let people = try store.obtainPermanentIDs(for: "Person", count: 3)
        var inserts = [makeSnapshot(d, in: model, ["name": "R&D"], relationships: ["employees": .toMany([e[0], e[1]])])]
        inserts.append(makeSnapshot(e[0], in: model, ["name": "a"], relationships: ["department": .toOne(d), "projects": .toMany([p[0], p[1]]), "mentee": .toOne(e[1])]))
        inserts.append(makeSnapshot(e[1], in: model, ["name": "b", "big": 2], relationships: ["department": .toOne(d), "projects": .toMany([p[1]]), "mentor": .toOne(e[0])]))
        inserts.append(makeSnapshot(e[2], in: model, ["name": "c", "big": 3]))
        inserts.append(makeSnapshot(p[0], in: model, ["title": "x"], relationships: ["members": .toMany([e[0]]), "tasks": .toMany([t[2], t[0], t[1]]), "milestones": .toMany([m[1], m[0]])]))
        inserts.append(makeSnapshot(p[1], in: model, ["title": "y"], relationships: ["members": .toMany([e[0], e[1]]), "milestones": .toMany([m[0]])]))
        for task in t { inserts.append(makeSnapshot(task, in: model, ["title": "t"], relationships: ["project": .toOne(p[0])])) }
        inserts.append(makeSnapshot(m[0], in: model, ["title": "m0"], relationships: ["projects": .toMany([p[1], p[0]])]))
        inserts.append(makeSnapshot(m[1], in: model, ["title": "m1"], relationships: ["projects": .toMany([p[0]])]))
        inserts.append(makeSnapshot(people[0], in: model, ["name": "p0"], relationships: ["friends": .toMany([people[1], people[2]]), "spouse": .toOne(people[1])]))
        inserts.append(makeSnapshot(people[1], in: model, ["name": "p1"], relationships: ["friends": .toMany([people[0]]), "spouse": .toOne(people[0])]))
        inserts.append(makeSnapshot(people[2], in: model, ["name": "p2"], relationships: ["friends": .toMany([people[0]])]))
        try store.save(SaveRequest(inserts: inserts))

        func fetch(_ id: ObjectID) throws -> Snapshot {
            try store.fetch(FetchRequest(entityName: id.entityName, objectIDs: [id])).snapshots()[0]
        }
        for original in inserts {
            #expect(try fetch(original.objectID).relationships == original.relationships, "\(original.objectID)")
        }

        // Reorder an ordered to-many and an ordered many-to-many side; move an employee.
        var project = try fetch(p[0])
        project.relationships[1] = .toMany([t[1], t[2], t[0]])
        project.relationships[2] = .toMany([m[0], m[1]])
        var employee = try fetch(e[1])
        employee.relationships[0] = .toOne(nil)
        var department = try fetch(d)
        department.relationships[0] = .toMany([e[0]])
        try store.save(SaveRequest(updates: [.init(project, expectedVersion: 1), .init(employee, expectedVersion: 1), .init(department, expectedVersion: 1)]))
        #expect(try fetch(p[0]).relationships == project.relationships)
        #expect(try fetch(p[0]).version == 2)
        #expect(try fetch(d).relationships == [.toMany([e[0]])])
        #expect(try fetch(e[1]).relationships[0] == .toOne(nil))
        #expect(try fetch(m[0]).relationships == [.toMany([p[1], p[0]])])
    }

    @Test func staleUpdatesAndDeletesConflictListingEveryObjectAndWriteNothing() throws {
        let model = try testModel()
        let store = try openStore(temporaryStoreURL(), model: model)
        let ids = try store.obtainPermanentIDs(for: "Department", count: 4)
        try store.save(SaveRequest(inserts: ids.map { makeSnapshot($0, in: model, ["name": "d"]) }))
        try store.save(SaveRequest(updates: [.init(makeSnapshot(ids[0], in: model, ["name": "v2"]), expectedVersion: 1)]))
        try store.save(SaveRequest(deletes: [.init(ids[3], expectedVersion: 1)]))
        let newID = try store.obtainPermanentIDs(for: "Department", count: 1)[0]
        let request = SaveRequest(
            inserts: [makeSnapshot(newID, in: model, ["name": "new"])],
            updates: [.init(makeSnapshot(ids[0], in: model, ["name": "stale"]), expectedVersion: 1), .init(makeSnapshot(ids[1], in: model, ["name": "fine"]), expectedVersion: 1)],
            deletes: [.init(ids[2], expectedVersion: 7), .init(ids[3], expectedVersion: 1)]
        )
        let error = #expect(throws: StrataError.self) { try store.save(request) }
        #expect(error?.code == .conflict)
        let conflicts = Dictionary(uniqueKeysWithValues: (error?.conflicts ?? []).map { ($0.objectID, $0) })
        #expect(conflicts.count == 3)
        #expect(conflicts[ids[0]]?.storedVersion == 2)
        #expect(conflicts[ids[0]]?.storedSnapshot?.attributes == ["v2"])
        #expect(conflicts[ids[2]]?.storedVersion == 1)
        #expect(conflicts[ids[3]] != nil && conflicts[ids[3]]?.storedSnapshot == nil)
        let all = try store.fetch(FetchRequest(entityName: "Department")).snapshots()
        #expect(all.map(\.objectID) == [ids[0], ids[1], ids[2]])
        #expect(all[1].attributes == ["d"] && all[1].version == 1)
    }

    @Test func invalidValuesAreRejectedBeforeAnythingIsWritten() throws {
        let model = try testModel()
        let store = try openStore(temporaryStoreURL(), model: model)
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 2)
        let good = makeSnapshot(ids[0], in: model, ["name": "ok"])
        let wrongType = makeSnapshot(ids[1], in: model, ["name": "x", "age": "old"])
        #expect(throws: StrataError.self) { try store.save(SaveRequest(inserts: [good, wrongType])) }
        #expect((try? store.save(SaveRequest(inserts: [good, wrongType]))) == nil)
        let tooBig = makeSnapshot(ids[1], in: model, ["name": "x", "small": .integer(40_000)])
        #expect(throws: StrataError.self) { try store.save(SaveRequest(inserts: [good, tooBig])) }
        let missing = makeSnapshot(ids[1], in: model, [:])
        do { try store.save(SaveRequest(inserts: [good, missing])); Issue.record("saved a nil required value") } catch let error as StrataError { #expect(error.code == .missingValue) }
        do {
            try store.save(SaveRequest(inserts: [Snapshot(objectID: ObjectID(entityName: "Nope", storeIdentifier: store.identifier, primaryKey: 1), version: 0, attributes: [], relationships: [])]))
            Issue.record("saved an unknown entity")
        } catch let error as StrataError { #expect(error.code == .unknownEntity) }
        #expect(try store.fetch(FetchRequest(entityName: "Employee")).snapshots().isEmpty)
    }

    @Test func uniqueConstraintViolationRollsBackTheWholeSave() throws {
        let model = try testModel()
        let store = try openStore(temporaryStoreURL(), model: model)
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 2)
        do {
            try store.save(SaveRequest(inserts: [makeSnapshot(ids[0], in: model, ["name": "a", "big": 1]), makeSnapshot(ids[1], in: model, ["name": "b", "big": 1])]))
            Issue.record("saved a duplicate")
        } catch let error as StrataError {
            #expect(error.code == .uniqueConstraint)
        }
        #expect(try store.fetch(FetchRequest(entityName: "Employee")).snapshots().isEmpty)
    }

    @Test func keysAreNeverReusedAcrossReopenAndDeletes() throws {
        let url = temporaryStoreURL()
        let model = try testModel()
        var store = try openStore(url, model: model)
        let first = try store.obtainPermanentIDs(for: "Department", count: 3)
        try store.save(SaveRequest(inserts: first.map { makeSnapshot($0, in: model, ["name": "d"]) }))
        try store.save(SaveRequest(deletes: first.map { .init($0, expectedVersion: 1) }))
        try store.close()
        store = try openStore(url, model: model)
        let second = try store.obtainPermanentIDs(for: "Department", count: 2)
        #expect(second.map(\.primaryKey) == [4, 5])
        #expect(try store.obtainPermanentIDs(for: "Employee", count: 1)[0].primaryKey == 1)
        #expect(second[0].storeIdentifier == first[0].storeIdentifier)
    }

    @Test func metadataKeepsUserKeysAndIdentityAcrossReopen() throws {
        let url = temporaryStoreURL()
        let model = try testModel()
        var store = try openStore(url, model: model)
        let identifier = store.identifier
        try store.save(SaveRequest(metadataChanges: ["sync": "42", "gone": "x"]))
        try store.save(SaveRequest(metadataChanges: ["gone": String?.none]))
        try store.close()
        #expect(throws: StrataError.self) { try store.metadata() }
        store = try openStore(url, model: model)
        let metadata = try store.metadata()
        #expect(metadata.storeIdentifier == identifier)
        #expect(metadata.userInfo == ["sync": "42"])
        #expect(metadata.modelVersionHash == model.versionHash)
        #expect(metadata.storeType == "sqlite")
        #expect(try SQLiteBackend().metadata(at: url) == metadata)
        #expect(try SQLiteBackend().metadata(at: temporaryStoreURL()) == nil)
    }

    @Test func closedStoreThrowsStoreClosedAndClosingTwiceIsHarmless() throws {
        let store = try openStore(temporaryStoreURL())
        try store.close()
        try store.close()
        for operation in [{ _ = try store.fetch(FetchRequest(entityName: "Department")) }, { _ = try store.obtainPermanentIDs(for: "Department", count: 1) }, { try store.save(SaveRequest(metadataChanges: ["a": "b"])) }] {
            do { try operation(); Issue.record("worked after close") } catch let error as StrataError { #expect(error.code == .storeClosed) }
        }
    }

    @Test func newStoreFilesAreCreatedOwnerOnly() throws {
        let url = temporaryStoreURL()
        let store = try openStore(url)
        let ids = try store.obtainPermanentIDs(for: "Department", count: 1)
        try store.save(SaveRequest(inserts: [makeSnapshot(ids[0], in: store.model, ["name": "d"])]))
        for file in [url.location, url.location + "-wal"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(file)")
        }
    }

    @Test func optionsAreValidated() throws {
        for (name, value) in [("synchronous", "sometimes"), ("busyTimeout", "-1"), ("busyTimeout", "soon"), ("cacheSize", "1")] {
            do {
                _ = try openStore(temporaryStoreURL(), options: StoreOptions(options: [name: value]))
                Issue.record("accepted \(name)=\(value)")
            } catch let error as StrataError {
                #expect(error.code == .invalidOption)
            }
        }
        let store = try openStore(temporaryStoreURL(), options: StoreOptions(options: ["synchronous": "full", "busyTimeout": "100"]))
        let mode = try store.withWriter { try $0.scalarText("PRAGMA synchronous") }
        #expect(mode == "2")
        let journal = try store.withWriter { try $0.scalarText("PRAGMA journal_mode") }
        #expect(journal == "wal")
    }

    @Test func readOnlyStoresReadButRefuseToWrite() throws {
        let url = temporaryStoreURL()
        let model = try testModel()
        let writer = try openStore(url, model: model)
        let id = try writer.obtainPermanentIDs(for: "Department", count: 1)[0]
        try writer.save(SaveRequest(inserts: [makeSnapshot(id, in: model, ["name": "d"])]))
        try writer.close()
        let reader = try openStore(url, model: model, options: StoreOptions(isReadOnly: true))
        #expect(try reader.fetch(FetchRequest(entityName: "Department")).snapshots().count == 1)
        do { try reader.save(SaveRequest(metadataChanges: ["a": "b"])); Issue.record("saved read-only") } catch let error as StrataError { #expect(error.code == .readOnly) }
        do { _ = try reader.obtainPermanentIDs(for: "Department", count: 1); Issue.record("allocated read-only") } catch let error as StrataError { #expect(error.code == .readOnly) }
        do { _ = try openStore(temporaryStoreURL(), options: StoreOptions(isReadOnly: true)); Issue.record("created read-only") } catch let error as StrataError { #expect(error.code == .storeNotFound) }
        do { _ = try openStore(temporaryStoreURL(), options: StoreOptions(createsIfMissing: false)); Issue.record("created") } catch let error as StrataError { #expect(error.code == .storeNotFound) }
    }

    @Test func theSchemaIsReadableTablesAndColumnsNamedAfterTheModel() throws {
        let store = try openStore(temporaryStoreURL())
        let names: [String] = try store.withWriter { connection in
            let statement = try connection.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%' ORDER BY name")
            defer { statement.reset() }
            var names: [String] = []
            while try statement.step() { names.append(statement.string(0)) }
            return names
        }
        for expected in ["Department", "Employee", "Employee.projects", "Employee.fk.department", "Employee.fk.mentee", "Employee.index.byName", "Employee.unique.big", "Milestone.projects", "Person.friends", "_strata_metadata", "_strata_sequence"] {
            #expect(names.contains(expected), "\(expected) missing from \(names)")
        }
        let columns: [String] = try store.withWriter { connection in
            let statement = try connection.prepare("SELECT name FROM pragma_table_info('Task')")
            defer { statement.reset() }
            var names: [String] = []
            while try statement.step() { names.append(statement.string(0)) }
            return names
        }
        #expect(columns == ["_pk", "_version", "title", "project", "_position_project"])
    }

    @Test func largeFetchesReadToManyRelationshipsInBulkWithTheSameResult() throws {
        let model = try testModel()
        let store = try openStore(temporaryStoreURL(), model: model)
        let projects = try store.obtainPermanentIDs(for: "Project", count: 40)
        let tasks = try store.obtainPermanentIDs(for: "Task", count: 120)
        var inserts: [Snapshot] = []
        for (i, project) in projects.enumerated() {
            // Three tasks per project but the first, in descending key order: the saved order.
            let own = i == 0 ? [] : Array(tasks[(3 * i)..<(3 * i + 3)].reversed())
            inserts.append(makeSnapshot(project, in: model, ["title": .string("p\(i)")], relationships: ["tasks": .toMany(own)]))
            for task in own { inserts.append(makeSnapshot(task, in: model, ["title": "t"], relationships: ["project": .toOne(project)])) }
        }
        try store.save(SaveRequest(inserts: inserts))
        let bulk = try store.fetch(FetchRequest(entityName: "Project")).snapshots()
        #expect(bulk.count >= SQLiteStore.bulkToManyThreshold)
        for snapshot in bulk {
            let single = try store.fetch(FetchRequest(entityName: "Project", objectIDs: [snapshot.objectID])).snapshots()
            #expect(single == [snapshot])
        }
        #expect(bulk[0].relationships[1] == .toMany([]))
        #expect(bulk[1].relationships[1] == .toMany([tasks[5], tasks[4], tasks[3]]))
    }

    @Test func insertingAKeyThatExistsIsInvalidObjectIDAndWritesNothing() throws {
        let model = try testModel()
        let store = try openStore(temporaryStoreURL(), model: model)
        let ids = try store.obtainPermanentIDs(for: "Department", count: 2)
        try store.save(SaveRequest(inserts: [makeSnapshot(ids[0], in: model, ["name": "first"])]))
        do {
            try store.save(SaveRequest(inserts: [makeSnapshot(ids[1], in: model, ["name": "second"]), makeSnapshot(ids[0], in: model, ["name": "again"])]))
            Issue.record("inserted a key twice")
        } catch let error as StrataError {
            #expect(error.code == .invalidObjectID)
        }
        let all = try store.fetch(FetchRequest(entityName: "Department")).snapshots()
        #expect(all.map(\.objectID) == [ids[0]])
        #expect(all[0].attributes == ["first"])
    }

    @Test func largeSavesInsertManyRowsPerStatementWithTheSameResult() throws {
        let model = try testModel()
        let store = try openStore(temporaryStoreURL(), model: model)
        let table = try #require(store.schema.tables["Employee"])
        let count = table.bulkInsertRows * 3 + 5
        let department = try store.obtainPermanentIDs(for: "Department", count: 1)[0]
        let ids = try store.obtainPermanentIDs(for: "Employee", count: count)
        var inserts = ids.enumerated().map { i, id in
            makeSnapshot(id, in: model, ["name": .string("e\(i)"), "big": .integer(Int64(i)), "height": i % 7 == 0 ? .double(.nan) : .double(Double(i))],
                         relationships: ["department": .toOne(department)])
        }
        inserts.insert(makeSnapshot(department, in: model, ["name": "d"], relationships: ["employees": .toMany(ids)]), at: count / 2)
        let result = try store.save(SaveRequest(inserts: inserts))
        #expect(result.versions.count == count + 1)
        let stored = try store.fetch(FetchRequest(entityName: "Employee")).snapshots()
        #expect(stored.map(\.objectID) == ids)
        for (snapshot, original) in zip(stored, inserts.filter { $0.objectID.entityName == "Employee" }) {
            #expect(snapshot.attributes == original.attributes && snapshot.relationships == original.relationships)
        }
        #expect(try store.fetch(FetchRequest(entityName: "Department")).snapshots()[0].relationships == [.toMany(ids)])

        // A key collision inside a many-row INSERT is reported and nothing of the save is kept.
        let more = try store.obtainPermanentIDs(for: "Employee", count: table.bulkInsertRows)
        var colliding = more.enumerated().map { i, id in makeSnapshot(id, in: model, ["name": "x", "big": .integer(Int64(10_000 + i))]) }
        colliding[3] = makeSnapshot(ids[0], in: model, ["name": "dup"])
        do {
            try store.save(SaveRequest(inserts: colliding))
            Issue.record("inserted an existing key")
        } catch let error as StrataError {
            #expect(error.code == .invalidObjectID)
        }
        #expect(try store.fetch(FetchRequest(entityName: "Employee", resultType: .count)).count() == count)
    }
}
