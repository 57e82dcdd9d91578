import Foundation
import StrataConformance
import StrataCore
import StrataInMemory
import Testing

@Suite struct InMemoryStoreTests {
    let model = ConformanceFixtures.model

    @Test func namedStoreIsSharedWithinTheProcess() throws {
        let url = StoreURL(scheme: "memory", location: "shared-\(UUID().uuidString)")
        let first = try InMemoryBackend().open(url, model: model, options: StoreOptions())
        let second = try InMemoryBackend().open(url, model: model, options: StoreOptions())
        #expect(first.identifier == second.identifier)
        let id = try first.obtainPermanentIDs(for: "Company", count: 1)[0]
        var snapshot = Snapshot(objectID: id, entity: model.entity(named: "Company")!)
        snapshot.attributes[0] = "Acme"
        try first.save(SaveRequest(inserts: [snapshot]))
        #expect(try second.fetch(FetchRequest(entityName: "Company")).count() == 1)
        try InMemoryBackend().destroyStore(at: url)
        #expect(try InMemoryBackend().metadata(at: url) == nil)
    }

    @Test func anonymousStoresAreSeparate() throws {
        let url = StoreURL(scheme: "memory", location: "")
        let first = try InMemoryBackend().open(url, model: model, options: StoreOptions())
        let second = try InMemoryBackend().open(url, model: model, options: StoreOptions())
        #expect(first.identifier != second.identifier)
    }

    @Test func unknownOptionIsRejected() throws {
        let error = #expect(throws: StrataError.self) {
            _ = try InMemoryBackend().open(StoreURL(scheme: "memory", location: ""), model: model, options: StoreOptions(options: ["mapSize": "1"]))
        }
        #expect(error?.code == .invalidOption)
    }

    @Test func batchDeleteNullifiesInversesAndReportsWhatItDeleted() throws {
        let store = try InMemoryBackend().open(StoreURL(scheme: "memory", location: ""), model: model, options: StoreOptions())
        let company = model.entity(named: "Company")!, department = model.entity(named: "Department")!
        let c = try store.obtainPermanentIDs(for: "Company", count: 1)[0]
        let d = try store.obtainPermanentIDs(for: "Department", count: 2)
        var cs = Snapshot(objectID: c, entity: company)
        cs.attributes[0] = "Acme"
        cs.relationships[0] = .toMany(d)
        var inserts = [cs]
        for (i, id) in d.enumerated() {
            var ds = Snapshot(objectID: id, entity: department)
            ds.attributes[0] = .string("D\(i)")
            ds.relationships[0] = .toOne(c)
            inserts.append(ds)
        }
        try store.save(SaveRequest(inserts: inserts))
        let batch = try #require(store.capability((any BatchOperating).self))
        let result = try batch.batchDelete(entityName: "Department", predicate: .comparison(.init(.keyPath("name"), .equal, .constant("D0"))))
        #expect(result.objectIDs == [d[0]])
        let acme = try store.fetch(FetchRequest(entityName: "Company")).snapshots()[0]
        #expect(acme.relationships[0] == .toMany([d[1]]))
        #expect(acme.version == 2)
        let updated = try batch.batchUpdate(entityName: "Department", predicate: nil, values: ["budget": .decimal(5)])
        #expect(updated.objectIDs == [d[1]])
        #expect(try store.fetch(FetchRequest(entityName: "Department")).snapshots()[0].attributes[1] == .decimal(5))
        #expect(throws: StrataError.self) { try batch.batchUpdate(entityName: "Department", predicate: nil, values: ["name": nil]) }
    }
}
