import Foundation
import StrataCore
import StrataLMDB
import Testing

@Suite("LMDB store: how many records a save reads")
struct LMDBSaveReadTests {
    /// The version check and the removal of old index entries share one read of each record.
    @Test func aSaveReadsEachUpdatedOrDeletedRecordOnce() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        let store = try openStore(path)
        defer { try? store.close() }
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 6)
        let inserted = ids.enumerated().map { employee($1, name: "e\($0)", age: Int64(20 + $0), model: model) }
        try store.save(SaveRequest(inserts: inserted))

        var changed = inserted[0]
        changed.attributes[1] = .integer(99)
        let before = store.recordReadsInSaves
        try store.save(
            SaveRequest(
                updates: [SaveRequest.Update(changed, expectedVersion: 1)],
                deletes: ids[3...].map { SaveRequest.Delete($0, expectedVersion: 1) }))
        #expect(store.recordReadsInSaves - before == 4)

        let byAge = { (age: Int64) in
            try store.fetch(
                FetchRequest(
                    entityName: "Employee",
                    predicate: .comparison(.init(.keyPath("age"), .equal, .constant(.integer(age)))))
            ).snapshots()
        }
        #expect(try byAge(20).isEmpty)
        #expect(try byAge(99).map(\.objectID) == [ids[0]])
        #expect(try byAge(23).isEmpty)
        #expect(try store.fetch(FetchRequest(entityName: "Employee")).snapshots().map(\.objectID) == Array(ids[..<3]))
    }

    /// A conflict is found by the same read, and nothing is written.
    @Test func aConflictingDeleteIsReportedFromTheSameRead() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        let store = try openStore(path)
        defer { try? store.close() }
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 2)
        try store.save(SaveRequest(inserts: ids.map { employee($0, name: "n", age: 30, model: model) }))
        let before = store.recordReadsInSaves
        #expect(throws: StrataError.self) {
            try store.save(
                SaveRequest(deletes: [
                    SaveRequest.Delete(ids[0], expectedVersion: 1), SaveRequest.Delete(ids[1], expectedVersion: 7),
                ]))
        }
        #expect(store.recordReadsInSaves - before == 2)
        #expect(try store.fetch(FetchRequest(entityName: "Employee")).snapshots().count == 2)
    }
}
