import Foundation
import StrataCore
import StrataLMDB
import Testing

@Suite("LMDB store: saves, fetches, IDs, metadata")
struct LMDBStoreTests {
    @Test func everyValueTypeRoundTripsExactly() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        let store = try openStore(path)
        let id = try store.obtainPermanentIDs(for: "Employee", count: 1)[0]
        var snapshot = employee(id, name: "Zoë \u{0}nul", age: -42, model: model)
        snapshot.attributes[2] = .double(.nan)
        snapshot.attributes[3] = .date(Date(timeIntervalSinceReferenceDate: 123_456.789_012_345))
        snapshot.attributes[4] = .bool(false)
        snapshot.attributes[5] = .binary(Data([0, 1, 2, 255]))
        snapshot.attributes[6] = .uuid(UUID())
        snapshot.attributes[7] = .uri(URL(string: "https://example.com/a?b=c#d")!)
        snapshot.attributes[8] = .decimal(Decimal(string: "-12345678901234567890.0123456789")!)
        snapshot.attributes[9] = .float(-1.5e-7)
        snapshot.attributes[10] = .integer(Int64(Int16.min))
        let result = try store.save(SaveRequest(inserts: [snapshot]))
        #expect(result.versions[id] == 1)
        try store.close()

        let reopened = try openStore(path)
        defer { try? reopened.close() }
        let fetched = try reopened.fetch(FetchRequest(entityName: "Employee")).snapshots()
        snapshot.version = 1
        #expect(fetched == [snapshot])
    }

    @Test func toManyAndToOneSidesAreReturnedAsSaved() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        let store = try openStore(path)
        defer { try? store.close() }
        let d = try store.obtainPermanentIDs(for: "Department", count: 1)[0]
        let e = try store.obtainPermanentIDs(for: "Employee", count: 3)
        var mentor = employee(e[0], name: "a", age: 50, department: d, model: model)
        mentor.relationships[2] = .toMany([e[2], e[1]])
        var first = employee(e[1], name: "b", age: 30, department: d, model: model)
        first.relationships[1] = .toOne(e[0])
        var second = employee(e[2], name: "c", age: 20, department: d, model: model)
        second.relationships[1] = .toOne(e[0])
        let dept = department(d, name: "R&D", employees: [e[2], e[0], e[1]], model: model)
        try store.save(SaveRequest(inserts: [dept, mentor, first, second]))

        let departments = try store.fetch(FetchRequest(entityName: "Department")).snapshots()
        #expect(
            departments.first?.relationships[0] == .toMany([e[0], e[1], e[2]]),
            "unordered to-many comes back sorted by ID")
        let employees = try store.fetch(FetchRequest(entityName: "Employee", objectIDs: [e[0]])).snapshots()
        #expect(employees.first?.relationships[2] == .toMany([e[2], e[1]]), "ordered to-many keeps the user's order")
        #expect(employees.first?.relationships[0] == .toOne(d))
    }

    @Test func updatesBumpVersionsAndConflictsListEveryObjectAndWriteNothing() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        let store = try openStore(path)
        defer { try? store.close() }
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 3)
        try store.save(
            SaveRequest(inserts: ids.enumerated().map { employee($1, name: "e\($0)", age: Int64($0), model: model) }))
        let updated = employee(ids[0], name: "renamed", age: 10, model: model)
        #expect(try store.save(SaveRequest(updates: [.init(updated, expectedVersion: 1)])).versions[ids[0]] == 2)

        let stale = employee(ids[0], name: "stale", age: 11, model: model)
        let fine = employee(ids[2], name: "fine", age: 12, model: model)
        let error = #expect(throws: StrataError.self) {
            try store.save(
                SaveRequest(
                    inserts: [
                        employee(
                            try store.obtainPermanentIDs(for: "Employee", count: 1)[0], name: "new", age: 1,
                            model: model)
                    ],
                    updates: [.init(stale, expectedVersion: 1), .init(fine, expectedVersion: 1)],
                    deletes: [.init(ids[1], expectedVersion: 7)]))
        }
        #expect(error?.code == .conflict)
        #expect(Set(error?.conflicts.map(\.objectID) ?? []) == [ids[0], ids[1]])
        #expect(error?.conflicts.first { $0.objectID == ids[0] }?.storedSnapshot?.attributes[0] == .string("renamed"))
        let all = try store.fetch(FetchRequest(entityName: "Employee")).snapshots()
        #expect(
            all.map { $0.attributes[0] } == [.string("renamed"), .string("e1"), .string("e2")],
            "nothing of the failed save was written")

        try store.save(SaveRequest(deletes: [.init(ids[1], expectedVersion: 1)]))
        let gone = #expect(throws: StrataError.self) {
            try store.save(SaveRequest(deletes: [.init(ids[1], expectedVersion: 1)]))
        }
        #expect(gone?.conflicts.first?.storedSnapshot == nil)
    }

    @Test func invalidValuesAreRejectedBeforeAnythingIsWritten() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        let store = try openStore(path)
        defer { try? store.close() }
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 2)
        let good = employee(ids[0], name: "ok", age: 1, model: model)
        var wrongType = employee(ids[1], name: "x", age: 1, model: model)
        wrongType.attributes[1] = .string("old")
        #expect(throws: StrataError.self) { try store.save(SaveRequest(inserts: [good, wrongType])) }
        var tooBig = employee(ids[1], name: "x", age: 1, model: model)
        tooBig.attributes[10] = .integer(70_000)
        #expect((try? store.save(SaveRequest(inserts: [good, tooBig]))) == nil)
        var missing = employee(ids[1], name: "x", age: 1, model: model)
        missing.attributes[0] = .null
        let error = #expect(throws: StrataError.self) { try store.save(SaveRequest(inserts: [good, missing])) }
        #expect(error?.code == .missingValue)
        let unknown = Snapshot(
            objectID: ObjectID(entityName: "Nope", storeIdentifier: store.identifier, primaryKey: 1), version: 0,
            attributes: [], relationships: [])
        #expect(
            (#expect(throws: StrataError.self) { try store.save(SaveRequest(inserts: [good, unknown])) })?.code
                == .unknownEntity)
        #expect(try store.fetch(FetchRequest(entityName: "Employee", resultType: .count)).count() == 0)
    }

    @Test func uniqueConstraintsAreCheckedAgainstTheFinalStateOfTheSave() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        let store = try openStore(path)
        defer { try? store.close() }
        let d = try store.obtainPermanentIDs(for: "Department", count: 3)
        try store.save(
            SaveRequest(inserts: [department(d[0], name: "a", model: model), department(d[1], name: "b", model: model)])
        )
        let duplicate = #expect(throws: StrataError.self) {
            try store.save(SaveRequest(inserts: [department(d[2], name: "a", model: model)]))
        }
        #expect(duplicate?.code == .uniqueConstraint)
        // Swapping the unique names of two departments in one save is fine.
        try store.save(
            SaveRequest(updates: [
                .init(department(d[0], name: "b", model: model), expectedVersion: 1),
                .init(department(d[1], name: "a", model: model), expectedVersion: 1),
            ]))
        // Deleting one and taking its name in the same save is fine too.
        try store.save(
            SaveRequest(
                inserts: [department(d[2], name: "b", model: model)], deletes: [.init(d[0], expectedVersion: 2)]))
        let names = try store.fetch(FetchRequest(entityName: "Department")).snapshots().map { $0.attributes[0] }
        #expect(names == [.string("a"), .string("b")])
    }

    @Test func keysAreNeverHandedOutTwiceAcrossReopenOrAfterDeletes() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        var store = try openStore(path)
        let first = try store.obtainPermanentIDs(for: "Employee", count: 5)
        try store.save(SaveRequest(inserts: [employee(first[4], name: "last", age: 1, model: model)]))
        try store.save(SaveRequest(deletes: [.init(first[4], expectedVersion: 1)]))
        try store.close()
        store = try openStore(path)
        defer { try? store.close() }
        let second = try store.obtainPermanentIDs(for: "Employee", count: 5)
        #expect(Set(first.compactMap(\.primaryKey)).isDisjoint(with: second.compactMap(\.primaryKey)))
        #expect(second.allSatisfy { $0.storeIdentifier == store.identifier })
    }

    @Test func metadataChangesAreSavedAtomicallyAndModelMismatchLeavesTheStoreAlone() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try openStore(path)
        try store.save(SaveRequest(metadataChanges: ["owner": "lead", "temp": "x"]))
        try store.save(SaveRequest(metadataChanges: ["temp": String?.none]))
        #expect(try store.metadata().userInfo == ["owner": "lead"])
        #expect(try store.metadata().storeType == "lmdb")
        let identifier = store.identifier
        try store.close()

        let other = try Model(
            versionIdentifier: "v2", entities: [Entity("Thing", attributes: [Attribute("x", .integer64)])])
        let error = #expect(throws: StrataError.self) { try openStore(path, model: other) }
        #expect(error?.code == .modelMismatch)
        let metadata = try LMDBBackend().metadata(at: StoreURL(scheme: "lmdb", location: path))
        #expect(metadata?.storeIdentifier == identifier)
        #expect(metadata?.modelVersionHash == (try companyModel()).versionHash)
        #expect(try LMDBBackend().metadata(at: StoreURL(scheme: "lmdb", location: path + "-missing")) == nil)
    }

    @Test func closedStoresThrowStoreClosedAndCloseTwiceIsHarmless() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try openStore(path)
        try store.close()
        try store.close()
        #expect(
            (#expect(throws: StrataError.self) { try store.fetch(FetchRequest(entityName: "Employee")) })?.code
                == .storeClosed)
        #expect(
            (#expect(throws: StrataError.self) { try store.obtainPermanentIDs(for: "Employee", count: 1) })?.code
                == .storeClosed)
    }

    @Test func readOnlyStoresRefuseSavesAndMissingStoresAreNotCreatedWhenForbidden() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        #expect(
            (#expect(throws: StrataError.self) { try openStore(path, options: StoreOptions(createsIfMissing: false)) })?
                .code == .storeNotFound)
        #expect(!FileManager.default.fileExists(atPath: path))
        try openStore(path).close()
        let store = try openStore(path, options: StoreOptions(isReadOnly: true))
        defer { try? store.close() }
        #expect(
            (#expect(throws: StrataError.self) { try store.save(SaveRequest(metadataChanges: ["a": "b"])) })?.code
                == .readOnly)
        #expect(try store.fetch(FetchRequest(entityName: "Employee")).snapshots().isEmpty)
    }

    @Test func optionsAreValidated() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        for values in [
            ["mapSize": "tiny"], ["mapSize": "10"], ["sync": "sometimes"], ["durability": "sometimes"],
            ["mapsize": "1048576"],
        ] {
            let error = #expect(throws: StrataError.self) {
                try openStore(path, options: StoreOptions(options: values))
            }
            #expect(error?.code == .invalidOption)
        }
        for sync in ["full", "nosync", "nometasync"] {
            try openStore(path, options: StoreOptions(options: ["sync": sync, "mapSize": "2097152"])).close()
        }
    }

    @Test func destroyStoreRemovesTheEnvironmentButRefusesWhileOpen() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let url = StoreURL(scheme: "lmdb", location: path)
        let store = try openStore(path)
        #expect((#expect(throws: StrataError.self) { try LMDBBackend().destroyStore(at: url) })?.code == .storeBusy)
        try store.close()
        try LMDBBackend().destroyStore(at: url)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func registryOpensTheSchemeAndTwoStoresInOneProcessShareTheEnvironment() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let registry = StoreRegistry()
        registry.register(LMDBBackend())
        let model = try companyModel()
        let a = try registry.open("lmdb:\(path)", model: model)
        let b = try registry.open("lmdb:\(path)", model: model)
        let id = try a.obtainPermanentIDs(for: "Employee", count: 1)[0]
        try a.save(SaveRequest(inserts: [employee(id, name: "shared", age: 3, model: model)]))
        try a.close()
        #expect(try b.fetch(FetchRequest(entityName: "Employee", resultType: .count)).count() == 1)
        try b.close()
    }
}
