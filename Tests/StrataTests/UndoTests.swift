import Foundation
import Strata
import Testing

@Suite struct UndoTests {
    @Test func rollbackRestoresTheLastSavedState() throws {
        let context = try makeContext()
        let d = context.insert(Department.self), e = context.insert(Employee.self)
        d.name = "D"; e.name = "lxz"; e.department = d
        try context.save()
        e.name = "changed"
        e.department = nil
        context.delete(d)
        let newcomer = context.insert(Employee.self)
        context.rollback()
        #expect(e.name == "lxz" && e.department === d && !d.isDeleted)
        #expect(d.employees == [e])
        #expect(!context.hasChanges)
        #expect(throws: StrataError.self) { try newcomer.set("x", for: "name") }
    }

    @Test func resetForgetsEveryObject() throws {
        let context = try makeContext()
        let e = context.insert(Employee.self)
        e.name = "lxz"
        try context.save()
        let id = e.objectID
        context.reset()
        #expect(context.registeredObjects.isEmpty && !context.hasChanges)
        #expect(throws: StrataError.self) { try e.set("x", for: "name") }
        let again = try context.existingObject(with: id)
        #expect(again !== e && again["name"] == "lxz")
    }

    @Test func refreshWithoutMergingDropsChangesAndRereads() throws {
        let context = try makeContext()
        let e = context.insert(Employee.self)
        e.name = "lxz"
        try context.save()
        let other = ObjectContext(coordinator: context.coordinator)
        let copy = try #require(try other.existingObject(with: e.objectID) as? Employee)
        copy.height = 1.8
        try other.save()
        e.name = "unsaved"
        try context.refresh(e, mergeChanges: false)
        #expect(e.isFault)
        #expect(e.name == "lxz" && e.height == 1.8 && !context.hasChanges)
    }

    @Test func refreshMergingKeepsLocalEditsOverTheStore() throws {
        let context = try makeContext()
        let e = context.insert(Employee.self)
        e.name = "lxz"
        try context.save()
        let other = ObjectContext(coordinator: context.coordinator)
        let copy = try #require(try other.existingObject(with: e.objectID) as? Employee)
        copy.height = 1.8
        copy.name = "theirs"
        try other.save()
        e.name = "mine"
        try context.refresh(e, mergeChanges: true)
        #expect(e.name == "mine" && e.height == 1.8 && e.version == 2)
        try context.save()
        #expect(e.version == 3)
    }
}
