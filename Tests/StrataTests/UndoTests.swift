import Foundation
import Strata
import Testing

@Suite struct UndoTests {
    @Test func rollbackRestoresTheLastSavedState() throws {
        let context = try makeContext()
        let d = context.insert(Department.self)
        let e = context.insert(Employee.self)
        d.name = "D"
        e.name = "lxz"
        e.department = d
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

    @Test func aChangedObjectWhoseContextIsGoneRefusesFurtherChanges() throws {
        // The object is already changed, so a further change takes the path that does not ask
        // for the context: the context marks its changed objects when it goes away.
        var context: ObjectContext? = try makeContext()
        let e = try context!.insert("Employee")
        try e.set("lxz", for: "name")
        let saved = try context!.insert("Employee")
        try saved.set("kept", for: "name")
        try context!.save()
        try saved.set("changed", for: "name")
        context = nil
        let inserted = #expect(throws: StrataError.self) { try e.set("again", for: "name") }
        #expect(inserted?.code == .invalidObjectID)
        let updated = #expect(throws: StrataError.self) { try saved.set("again", for: "name") }
        #expect(updated?.code == .invalidObjectID)
        #expect(try saved.value(for: "name", as: String.self) == "changed")
    }

    @Test func aChangeMadeByADidSaveObserverIsKeptAsAnUnsavedChange() throws {
        let context = try makeContext()
        let e = try context.insert("Employee")
        try e.set("first", for: "name")
        // Observers run synchronously where the context posts, so the object stays on its
        // context's thread; the closure's type only says it might not.
        nonisolated(unsafe) let object = e
        let changer = NotificationCenter.default.addObserver(
            forName: ObjectContext.didSaveNotification, object: context, queue: nil
        ) { _ in
            try? object.set("second", for: "name")
            try? object.set("third", for: "name")
        }
        defer { NotificationCenter.default.removeObserver(changer) }
        try context.save()
        #expect(context.hasChanges)
        #expect(try e.value(for: "name", as: String.self) == "third")
    }
}
