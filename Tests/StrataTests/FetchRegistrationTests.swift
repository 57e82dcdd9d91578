import Foundation
import Strata
import Testing

/// A fetch registers its new objects after making them all (so the fetched snapshot array is
/// gone before the registry grows): the results and later lookups still give one instance per
/// ID, and the results' IDs are those of their objects, in order.
@Suite struct FetchRegistrationTests {
    @Test(arguments: [true, false])
    func fetchedObjectsAreRegisteredOncePerIDInResultOrder(asFaults: Bool) throws {
        let model = try Model(
            versionIdentifier: "registration",
            entities: [Entity("Item", attributes: [Attribute("n", .integer64)])])
        let path = NSTemporaryDirectory() + "strata-fetch-registration-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addStore(BuiltInBackends.registry.open("sqlite:\(path)", model: model))
        let writer = ObjectContext(coordinator: coordinator)
        for i in 0..<50 { try writer.insert("Item")["n"] = .integer(Int64(i)) }
        try writer.save()

        let context = ObjectContext(coordinator: coordinator)
        let early = context.object(with: try writer.fetchObjectIDs(FetchRequest(entityName: "Item"))[7])
        let options = FetchOptions(returnsObjectsAsFaults: asFaults)
        let results = try context.fetch(FetchRequest(entityName: "Item", sorts: [Sort("n")]), options: options)
        #expect(results.count == 50)
        #expect(results.objectIDs == results.map(\.objectID))
        #expect(results.contains { $0 === early }, "an object registered before the fetch is reused")
        let again = try context.fetch(FetchRequest(entityName: "Item", sorts: [Sort("n")]), options: options)
        #expect(zip(results, again).allSatisfy { $0 === $1 })
        for object in results { #expect(context.object(with: object.objectID) === object) }
        #expect(results.map { $0["n"] } == (0..<50).map { Value.integer(Int64($0)) })
    }
}
