import Foundation
import StrataCore
import Testing

@testable import StrataSQLite

/// `MATCHES` in SQL fails as the evaluator does when a pattern backtracks catastrophically: with
/// a typed error, not a fetch that runs for hours.
///
/// Before, `name MATCHES "(a+)+$"` over names like `aaa…a!` took seconds per row in SQLite and
/// in memory alike (and ICU, when its backtracking stack overflowed, answered "no match").
@Suite struct SQLiteMatchesBoundTests {
    @Test func catastrophicBacktrackingFailsTypedInSQLAndInMemory() throws {
        let model = try testModel()
        let store = try openStore(temporaryStoreURL(), model: model)
        let ids = try store.obtainPermanentIDs(for: "Employee", count: 4)
        let names = ["abc", String(repeating: "a", count: 30) + "!", "aaaa", "b"]
        try store.save(SaveRequest(inserts: zip(ids, names).map { makeSnapshot($0, in: model, ["name": .string($1)]) }))

        let hostile = FetchRequest(
            entityName: "Employee", predicate: try ObjectPredicate(format: "name MATCHES '(a+)+$'"),
            resultType: .objectIDs)
        #expect(store.nativeEvaluationDeclineReason(hostile) == nil)
        let attempts: [() throws -> FetchResult] = [{ try store.fetch(hostile) }, { try store.fetchInMemory(hostile) }]
        for attempt in attempts {
            do {
                _ = try attempt()
                Issue.record("a catastrophically backtracking MATCHES was answered")
            } catch let error as StrataError {
                #expect(error.code == .invalidPredicate, "\(error)")
                #expect(error.location["pattern"] == "(a+)+$")
            }
        }

        let ordinary = FetchRequest(
            entityName: "Employee", predicate: try ObjectPredicate(format: "name MATCHES 'a+'"), resultType: .objectIDs)
        #expect(try store.fetch(ordinary).objectIDs() == [ids[2]])
        #expect(try store.fetchInMemory(ordinary).objectIDs() == [ids[2]])
    }
}
