import Foundation
import Strata
import StrataTestSupport
import StrataTransfer
import Testing

/// `strata validate` found no fault in a store whose relationships disagreed with their
/// inverses or listed an object twice, and `export` then wrote a file `import` refused.
@Suite struct StoreValidatorInverseTests {
    /// The stores that keep each side of a relationship as it is saved (SQLite derives one side
    /// of these relationships from the other, so it cannot hold them apart).
    static let schemes = ["memory", "lmdb"]

    /// Two departments and two employees, saved through the store protocol with sides that
    /// disagree: e1 names d1, which does not list it; d2 lists e2, whose department is d1 (also
    /// not listing it); d2 lists e2 twice.
    static func inconsistentStore(_ scheme: String, in directory: URL) throws -> (
        any PersistentStore, [String: ObjectID]
    ) {
        let store = try Fixture.open(storeURL(scheme, in: directory))
        let model = store.model
        let department = model.entity(named: "Department")!
        let employee = model.entity(named: "Employee")!
        let d = try store.obtainPermanentIDs(for: "Department", count: 2)
        let e = try store.obtainPermanentIDs(for: "Employee", count: 2)
        func make(_ id: ObjectID, _ entity: Entity, _ name: String, _ links: [String: RelationshipValue]) -> Snapshot {
            var snapshot = Snapshot(objectID: id, entity: entity)
            snapshot.attributes[entity.attributeIndex(named: "name")!] = .string(name)
            if let level = entity.attributeIndex(named: "level") { snapshot.attributes[level] = .integer(1) }
            if let height = entity.attributeIndex(named: "height") { snapshot.attributes[height] = .double(1.7) }
            for (key, value) in links { snapshot.relationships[entity.relationshipIndex(named: key)!] = value }
            return snapshot
        }
        try store.save(
            SaveRequest(inserts: [
                make(d[0], department, "D1", ["employees": .toMany([])]),
                make(d[1], department, "D2", ["employees": .toMany([e[1], e[1]])]),
                make(e[0], employee, "E1", ["department": .toOne(d[0])]),
                make(e[1], employee, "E2", ["department": .toOne(d[0])]),
            ]))
        return (store, ["d1": d[0], "d2": d[1], "e1": e[0], "e2": e[1]])
    }

    @Test(arguments: schemes)
    func validateReportsSidesThatDisagreeAndRepeatedMembers(_ scheme: String) throws {
        let directory = TemporaryDirectory().url
        defer { try? FileManager.default.removeItem(at: directory) }
        let (store, ids) = try Self.inconsistentStore(scheme, in: directory)
        defer { try? store.close() }
        let d2 = try store.fetch(FetchRequest(entityName: "Department", objectIDs: [ids["d2"]!])).snapshots()[0]
        try #require(d2.relationships[1].targets.count == 2, "the \(scheme) store keeps what it was given")

        let violations = try StoreValidator().validate(store).violations.map(\.description)
        let (d1, e1, e2) = (ids["d1"]!, ids["e1"]!, ids["e2"]!)
        #expect(violations.contains("\(d2.objectID).employees: lists \(e2) 2 times"), "\(violations)")
        #expect(
            violations.contains(
                "\(e1).department: names \(d1), whose inverse Department.employees does not name \(e1)"),
            "\(violations)")
        #expect(
            violations.contains(
                "\(e2).department: names \(d1), whose inverse Department.employees does not name \(e2)"),
            "\(violations)")
        #expect(
            violations.contains(
                "\(d2.objectID).employees: names \(e2), whose inverse Employee.department does not name \(d2.objectID)"),
            "\(violations)")
        #expect(violations.count == 4, "\(violations)")

        // What validate now reports is what import refuses.
        let file = try Fixture.export(store)
        let fresh = try Fixture.open(storeURL("memory", in: directory, name: "fresh"))
        #expect(throws: StrataError.self) { try JSONLinesImporter().importLines(Data(file.utf8), into: fresh) }
    }

    @Test func aConsistentStoreHasNoRelationshipViolations() throws {
        let store = try Fixture.open(storeURL("memory", in: TemporaryDirectory().url))
        try seedCompany(store, employees: 40)
        #expect(try StoreValidator(batchSize: 7).validate(store).violations.isEmpty)
    }

    @Test func aRelationshipThatIsItsOwnInverseIsCheckedOnce() throws {
        let model = try Model(
            versionIdentifier: "p",
            entities: [
                Entity(
                    "Person", attributes: [Attribute("name", .string)],
                    relationships: [Relationship("friends", to: "Person", inverse: "friends", toMany: true)])
            ])
        let store = try BuiltInBackends.registry.open(
            StoreURL(scheme: "memory", location: "friends-\(UUID())"), model: model)
        let ids = try store.obtainPermanentIDs(for: "Person", count: 3)
        func person(_ i: Int, _ friends: [Int]) -> Snapshot {
            Snapshot(
                objectID: ids[i], version: 0, attributes: [.string("p\(i)")],
                relationships: [.toMany(friends.map { ids[$0] })])
        }
        // 0 and 1 are friends both ways; 2 names 0, who does not name 2.
        try store.save(SaveRequest(inserts: [person(0, [1]), person(1, [0]), person(2, [0])]))
        let violations = try StoreValidator().validate(store).violations.map(\.description)
        #expect(
            violations == ["\(ids[2]).friends: names \(ids[0]), whose inverse Person.friends does not name \(ids[2])"])
    }
}
