import Foundation
import Strata
import Testing

@Suite struct ObjectGraphTests {
    @Test func typedClassesDeriveTheSameModelHashAsTheJSONFile() throws {
        let json = try exampleCompanyModel()
        let derived = try Model(versionIdentifier: "v3", classes: companyClasses)
        #expect(derived.versionHash == json.versionHash)
        #expect(
            ModelVersionHash.canonicalText(entities: derived.entities)
                == ModelVersionHash.canonicalText(entities: json.entities))
        #expect(derived.entity(named: "Employee")?.attribute(named: "dateOfBirth")?.renamingIdentifier == "birthday")
    }

    @Test func typedAndKeyBasedAccessSeeTheSameStorage() throws {
        let context = try makeContext()
        let lxz = context.insert(Employee.self)
        lxz.name = "lxz"
        lxz.height = 1.75
        #expect(lxz["name"] == "lxz")
        #expect(try lxz.value(for: "height", as: Double.self) == 1.75)
        #expect(lxz.level == 1, "the model's default")
        try lxz.set(Int16(3), for: "level")
        #expect(lxz.level == 3)
        let engineering = context.insert(Department.self)
        engineering.name = "Engineering"
        lxz.department = engineering
        #expect(engineering.employees == [lxz])
        #expect(try engineering.objects(for: "employees").map(\.objectID) == [lxz.objectID])
    }

    @Test func uniquingGivesOneInstancePerID() throws {
        let context = try makeContext()
        let e = context.insert(Employee.self)
        e.name = "lxz"
        try context.save()
        let a = try context.fetch(FetchRequest(entityName: "Employee"))
        let b = try context.fetch(FetchRequest(entityName: "Employee"))
        #expect(a[0] === b[0])
        #expect(a[0] === e)
        #expect(context.object(with: e.objectID) === e)
        #expect(context.registeredObject(for: e.objectID) === e)
    }

    @Test func fetchedObjectsAreFaultsThatFillOnFirstAccess() throws {
        let context = try makeContext()
        let e = context.insert(Employee.self)
        e.name = "lxz"
        try context.save()
        let other = ObjectContext(coordinator: context.coordinator)
        let fetched = try other.fetch(FetchRequest(entityName: "Employee"))[0]
        #expect(fetched.isFault)
        #expect((fetched as? Employee)?.name == "lxz")
        #expect(!fetched.isFault)
        let eager = ObjectContext(coordinator: context.coordinator)
        #expect(
            !(try eager.fetch(
                FetchRequest(entityName: "Employee"), options: FetchOptions(returnsObjectsAsFaults: false))[0].isFault))
        #expect(try other.existingObject(with: e.objectID) === fetched)
        #expect(throws: StrataError.self) {
            try other.existingObject(
                with: ObjectID(entityName: "Employee", storeIdentifier: e.objectID.storeIdentifier, primaryKey: 999))
        }
    }

    @Test func batchedFetchKeepsAFewBatchesInMemory() throws {
        let context = try makeContext(rowCacheCapacity: 1_000)
        let store = context.coordinator.stores[0]
        let entity = context.model.entity(named: "Employee")!
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 20_000)
        try store.save(
            SaveRequest(
                inserts: ids.map { id in
                    var s = Snapshot(objectID: id, entity: entity)
                    s.attributes[0] = .string("e\(id.primaryKey!)")
                    return s
                }))
        var request = FetchRequest(entityName: "Employee", sorts: [Sort("name")])
        request.batchSize = 500
        let results = try context.fetch(request)
        #expect(results.count == 20_000)
        var peak = 0
        var seen = 0
        for index in results.indices {
            let employee = results[index]
            if case .string = employee["name"] { seen += 1 }
            if index % 1_000 == 0 { peak = max(peak, context.registeredObjects.count) }
        }
        #expect(seen == 20_000)
        #expect(peak <= 1_100, "live registered objects peaked at \(peak); two batches are 1,000")
        #expect(context.coordinator.cachedSnapshotCount <= 1_000)
    }

    @Test func fetchesIncludePendingChangesWithPredicatesAndSorts() throws {
        let context = try makeContext()
        for (name, height) in [("a", 1.6), ("b", 1.8), ("c", 1.9)] {
            let e = context.insert(Employee.self)
            e.name = name
            e.height = height
        }
        try context.save()
        let tall = FetchRequest(
            entityName: "Employee", predicate: try ObjectPredicate(format: "height > 1.7"),
            sorts: [Sort("height", ascending: false)])
        let names = { (options: FetchOptions) in
            try context.fetch(tall, options: options).map { ($0 as! Employee).name }
        }
        #expect(try names(FetchOptions()) == ["c", "b"])

        let d = context.insert(Employee.self)
        d.name = "d"
        d.height = 2.0
        let employees = try context.fetch(Employee.self, sortedBy: [Sort("name")])
        employees[0].height = 1.85 // a now matches
        context.delete(employees[2]) // c is gone
        #expect(try names(FetchOptions()) == ["d", "a", "b"])
        #expect(try context.count(tall) == 3)
        #expect(try names(FetchOptions(includesPendingChanges: false)) == ["c", "b"])
        var limited = tall
        limited.limit = 2
        limited.offset = 1
        #expect(try context.fetch(limited).map { ($0 as! Employee).name } == ["a", "b"])
    }

    @Test func pendingChangeOfARelatedObjectChangesWhatAKeyPathMatches() throws {
        let context = try makeContext()
        let engineering = context.insert(Department.self)
        let lxz = context.insert(Employee.self)
        engineering.name = "Engineering"
        lxz.name = "lxz"
        lxz.department = engineering
        try context.save()
        let inSales = FetchRequest(
            entityName: "Employee", predicate: try ObjectPredicate(format: "department.name == %@", "Sales"))
        #expect(try context.fetch(inSales).isEmpty)
        engineering.name = "Sales" // only the department changed, not the employee
        #expect(try context.fetch(inSales).map(\.objectID) == [lxz.objectID])
        #expect(try context.fetch(inSales, options: FetchOptions(includesPendingChanges: false)).isEmpty)
    }

    @Test func inversesFollowEveryKindOfRelationship() throws {
        let context = try makeContext()
        let acme = context.insert(Company.self)
        let engineering = context.insert(Department.self)
        let sales = context.insert(Department.self)
        let lxz = context.insert(Employee.self)
        let alice = context.insert(Employee.self)
        let apollo = context.insert(Project.self)
        // to-one side
        lxz.department = engineering
        #expect(engineering.employees == [lxz])
        lxz.department = sales
        #expect(engineering.employees.isEmpty && sales.employees == [lxz])
        lxz.department = nil
        #expect(sales.employees.isEmpty)
        // to-many side
        acme.departments = [engineering, sales]
        #expect(engineering.company === acme && sales.company === acme)
        acme.departments = [sales]
        #expect(engineering.company == nil)
        // ordered many-to-many
        apollo.members = [alice, lxz]
        #expect(lxz.projects == [apollo] && alice.projects == [apollo])
        #expect(apollo.members == [alice, lxz])
        apollo.members = [lxz]
        #expect(alice.projects.isEmpty)
        try alice.add(apollo, to: "projects")
        #expect(apollo.members == [lxz, alice])
    }

    @Test func oneToOneStealsThePreviousPartner() throws {
        let model = try Model(entities: [
            Entity(
                "Person", attributes: [Attribute("name", .string)],
                relationships: [Relationship("passport", to: "Passport", inverse: "owner")]),
            Entity(
                "Passport", attributes: [Attribute("number", .string)],
                relationships: [Relationship("owner", to: "Person", inverse: "passport")]),
        ])
        let context = try makeContext(model)
        let a = try context.insert("Person")
        let b = try context.insert("Person")
        let p = try context.insert("Passport")
        try a.setObject(p, for: "passport")
        #expect(try p.object(for: "owner") === a)
        try b.setObject(p, for: "passport")
        #expect(try p.object(for: "owner") === b)
        #expect(try a.object(for: "passport") == nil)
    }

    @Test func savingGivesPermanentIDsEverywhere() throws {
        let context = try makeContext()
        let d = context.insert(Department.self)
        let e = context.insert(Employee.self)
        d.name = "Engineering"
        e.name = "lxz"
        e.department = d
        #expect(e.objectID.isTemporary)
        try context.save()
        #expect(!e.objectID.isTemporary && !d.objectID.isTemporary)
        #expect(try e.objectIDs(for: "department") == [d.objectID])
        #expect(try d.objectIDs(for: "employees") == [e.objectID])
        #expect(!context.hasChanges)
        let fresh = ObjectContext(coordinator: context.coordinator)
        let fetched = try #require(try fresh.existingObject(with: e.objectID) as? Employee)
        #expect(fetched.department?.name == "Engineering")
    }

    @Test func obtainPermanentIDsOnDemand() throws {
        let context = try makeContext()
        let d = context.insert(Department.self)
        let e = context.insert(Employee.self)
        d.name = "D"
        e.name = "E"
        e.department = d
        try context.obtainPermanentIDs(for: [e, d])
        let early = e.objectID
        #expect(!e.objectID.isTemporary && e.isInserted)
        #expect(try e.objectIDs(for: "department") == [d.objectID])
        try context.save()
        #expect(e.objectID == early, "an ID obtained early is the one the object is saved under")
        #expect(try context.coordinator.snapshot(for: e.objectID) != nil)
    }
}
