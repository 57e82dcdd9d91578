import Foundation
import Strata
import StrataCore
import StrataRandomGraph
import StrataTestSupport
import Testing

/// A merged save that deleted objects takes them out of the relationships of this context's
/// changed objects, so that their unsaved edits (kept by the merge policy) do not name objects
/// that no longer exist, and their save succeeds.
@Suite struct MergeDeletedTargetTests {
    static let model = RandomGraphModel.make("merge-deleted")

    @Test(arguments: ["memory", "sqlite", "lmdb", "xml"])
    func aMergedDeletionLeavesTheRelationshipsOfChangedObjects(_ scheme: String) throws {
        let directory = TemporaryDirectory()
        let url = StoreURL(scheme: scheme, location: scheme == "memory" ? "" : directory.file("merge.\(scheme)"))
        let coordinator = StoreCoordinator(model: Self.model)
        try coordinator.addStore(BuiltInBackends.registry.open(url, model: Self.model))
        let seeding = ObjectContext(coordinator: coordinator)
        let department = try seeding.insert("Department")
        department["name"] = .string("d")
        department["budget"] = .integer(1)
        var random = SeededGenerator(seed: 1)
        for key in 0..<2 { try RandomGraphChanges.insertEmployee(seeding, key: Int64(key), random: &random) }
        try seeding.save()
        let employees = try seeding.fetchObjectIDs(FetchRequest(entityName: "Employee", sorts: [Sort("key")]))
        let departmentID = department.objectID

        let view = ObjectContext(coordinator: coordinator, name: "view")
        view.mergePolicy = .mergeByPropertyObjectTrump
        let loaded = view.object(with: departmentID)
        try loaded.setObjects([view.object(with: employees[0]), view.object(with: employees[1])], for: "employees")

        let worker = ObjectContext(coordinator: coordinator, name: "worker")
        worker.delete(worker.object(with: employees[0]))
        let saved = try RandomGraphChanges.saveReturningChanges(worker)

        try view.mergeChanges(fromContextDidSave: saved)
        #expect(try loaded.objects(for: "employees").map(\.objectID) == [employees[1]], "\(scheme)")
        try view.save()
        let fresh = ObjectContext(coordinator: coordinator)
        #expect(
            try fresh.object(with: departmentID).objects(for: "employees").map(\.objectID) == [employees[1]],
            "\(scheme)")
    }
}
