import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSQLite

/// A save binds strings longer than 15 bytes without copying them (SQLite reads the bytes of the
/// save request's values), shorter ones and other values as copies, and leaves no statement
/// holding a lent pointer once the save is done.
@Suite struct SQLiteRowBinderTests {
    /// Strings around the inline limit of `String` (15 UTF-8 bytes), multi-byte ones included.
    static let names = [
        "", "short", String(repeating: "a", count: 15), String(repeating: "b", count: 16),
        String(repeating: "é", count: 8), String(repeating: "z", count: 50), "漢字かな交じり文の名前はここに",
    ]

    @Test func longStringsAreLentShortOnesCopiedAndTheBindingsClearedAfterwards() throws {
        let store = try openStore(temporaryStoreURL())
        defer { try? store.close() }
        let long = String(repeating: "x", count: 40)
        try store.withWriter { connection in
            let select = try connection.prepare("SELECT ?1, ?2, ?3")
            defer { select.reset() }
            let lent = try SQLiteRowBinder.withBinder(keeping: SaveRequest()) {
                (binder: inout SQLiteRowBinder) throws -> Int in
                binder.bind(.string(long), at: 1, in: select)
                binder.bind(.string("short"), at: 2, in: select)
                binder.bind(.integer(7), at: 3, in: select)
                #expect(try select.step())
                #expect(select.string(0) == long)
                #expect(select.string(1) == "short")
                #expect(select.int64(2) == 7)
                select.reset()
                return binder.lentCount
            }
            #expect(lent == 1)
            // The statement holds no binding once the binder is done.
            #expect(try select.step())
            #expect(select.isNull(0) && select.isNull(1) && select.isNull(2))
        }
    }

    @Test(arguments: [1, 200])
    func stringsRoundTripThroughInsertsAndUpdates(_ rows: Int) throws {
        let model = try testModel()
        let store = try openStore(temporaryStoreURL(), model: model)
        defer { try? store.close() }
        let ids = try store.obtainPermanentIDs(for: "Task", count: rows)
        func name(_ row: Int, _ round: Int) -> String { Self.names[(row + round) % Self.names.count] + "\(round)" }
        try store.save(
            SaveRequest(inserts: ids.enumerated().map { makeSnapshot($1, in: model, ["title": .string(name($0, 0))]) }))
        try store.save(
            SaveRequest(
                updates: ids.enumerated().map {
                    .init(makeSnapshot($1, in: model, ["title": .string(name($0, 1))]), expectedVersion: 1)
                }))
        let stored = try store.fetch(FetchRequest(entityName: "Task", objectIDs: ids)).snapshots()
        let titles = Dictionary(uniqueKeysWithValues: stored.map { ($0.objectID, $0.attributes[0]) })
        for (row, id) in ids.enumerated() { #expect(titles[id] == .string(name(row, 1))) }
    }
}
