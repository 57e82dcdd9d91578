import Foundation
import Logging
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSQLite

/// The SQLite store logs each statement with its time through swift-log: without values at
/// `debug`, with them only at `trace`, and nothing when the logger wants neither.
@Suite(.serialized) struct SQLiteStatementLogTests {
    /// Opens a store at a new path with handlers at `level`, saves an employee named `secret`,
    /// fetches it by name, and returns what `strata.sqlite` logged for the file.
    private func logged(at level: Logger.Level, secret: String) throws -> [CapturingLogHandler.Record] {
        let url = temporaryStoreURL()
        let path = try url.plainLocation(for: "test")
        return try CapturingLogHandler.capture(at: level, mentioning: path) {
            let model = try testModel()
            let store = try openStore(url, model: model)
            let id = try store.obtainPermanentIDs(for: "Employee", count: 1)[0]
            try store.save(SaveRequest(inserts: [makeSnapshot(id, in: model, ["name": .string(secret)])]))
            _ = try store.fetch(
                FetchRequest(entityName: "Employee", predicate: ObjectPredicate(format: "name == %@", secret))
            ).snapshots()
            try store.close()
        }.filter { $0.label == "strata.sqlite" }
    }

    @Test func debugShowsEveryStatementAndItsTimeButNoValue() throws {
        let records = try logged(at: .debug, secret: "s3cret-debug")
        #expect(records.contains { $0.level == .debug && $0.message.hasPrefix("INSERT OR FAIL INTO \"Employee\"") })
        #expect(records.contains { $0.level == .debug && $0.message.contains("FROM \"Employee\"") })
        #expect(records.allSatisfy { $0.metadata["ms"].flatMap(Double.init) != nil })
        #expect(
            !records.contains { $0.message.contains("s3cret") || $0.metadata.values.contains { $0.contains("s3cret") } }
        )
        #expect(!records.contains { $0.level == .trace })
    }

    @Test func traceShowsTheBoundValues() throws {
        let records = try logged(at: .trace, secret: "s3cret-trace")
        #expect(records.contains { $0.level == .trace && $0.message.contains("'s3cret-trace'") })
    }

    @Test func aLoggerAtInfoLogsNothing() throws {
        #expect(try logged(at: .info, secret: "s3cret-info").isEmpty)
    }
}
