import Foundation
import StrataCore
import StrataLMDB
import Testing

/// A save deletes each object as soon as its version check passes; a conflict found later must
/// still leave the store exactly as it was, index entries included, and report every conflict.
@Suite struct LMDBDeleteConflictTests {
    @Test func deletesCheckedBeforeAConflictAreUndoneWithTheirIndexEntries() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try companyModel()
        let store = try openStore(path)
        defer { try? store.close() }
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 5)
        try store.save(
            SaveRequest(
                inserts: ids.enumerated().map { employee($1, name: "e\($0)", age: 40 + Int64($0), model: model) }))
        try store.save(SaveRequest(deletes: [SaveRequest.Delete(ids[4], expectedVersion: 1)]))

        let error = #expect(throws: StrataError.self) {
            try store.save(
                SaveRequest(deletes: [
                    SaveRequest.Delete(ids[0], expectedVersion: 1), SaveRequest.Delete(ids[1], expectedVersion: 1),
                    SaveRequest.Delete(ids[2], expectedVersion: 5), SaveRequest.Delete(ids[3], expectedVersion: 1),
                    SaveRequest.Delete(ids[4], expectedVersion: 1),
                ]))
        }
        #expect(error?.code == .conflict)
        #expect(error?.conflicts.map(\.objectID) == [ids[2], ids[4]])
        #expect(error?.conflicts.map { $0.storedSnapshot?.version } == [1, nil])

        let all = try store.fetch(FetchRequest(entityName: "Employee")).snapshots()
        #expect(all.map(\.objectID) == Array(ids[..<4]))
        for (position, id) in ids[..<4].enumerated() {
            let byAge = try store.fetch(
                FetchRequest(entityName: "Employee", predicate: .key("age") == Int64(40 + position))
            ).snapshots()
            #expect(byAge.map(\.objectID) == [id])
            let byName = try store.fetch(
                FetchRequest(entityName: "Employee", predicate: .key("name") == "e\(position)")
            ).snapshots()
            #expect(byName.map(\.objectID) == [id])
        }

        try store.save(SaveRequest(deletes: ids[..<4].map { SaveRequest.Delete($0, expectedVersion: 1) }))
        #expect(try store.fetch(FetchRequest(entityName: "Employee")).snapshots().isEmpty)
        #expect(
            try store.fetch(FetchRequest(entityName: "Employee", predicate: .key("age") >= Int64(0))).snapshots()
                .isEmpty)
    }
}
