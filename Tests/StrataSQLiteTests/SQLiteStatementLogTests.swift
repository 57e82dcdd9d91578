import Foundation
import Logging
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSQLite

/// Captures what Strata logs for the stores of these tests: the records whose `file` metadata
/// names a file of theirs. Installed once for the whole test process (swift-log's bootstrap
/// can run only once); the level new handlers get is set by each test.
private struct CapturingLogHandler: LogHandler {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    static let records = Locked([String: [Record]]())
    static let newHandlerLevel = Locked(Logger.Level.info)
    static let installed: Void = LoggingSystem.bootstrap { _ in
        CapturingLogHandler(logLevel: newHandlerLevel.withLock { $0 })
    }

    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        guard case .string(let file)? = all["file"] else { return }
        let record = Record(
            level: event.level, message: "\(event.message)", metadata: all.mapValues { "\($0)" })
        Self.records.withLock { records in
            if records[file] != nil { records[file]!.append(record) }
        }
    }

    /// Starts capturing the records of `path`.
    static func watch(_ path: String) { records.withLock { $0[path] = [] } }
}

/// The SQLite store logs each statement with its time through swift-log: without values at
/// `debug`, with them only at `trace`, and nothing when the logger wants neither.
@Suite(.serialized) struct SQLiteStatementLogTests {
    /// Opens a store at a new path with handlers at `level`, saves an employee named `secret`,
    /// fetches it by name, and returns what was logged for the file.
    private func logged(at level: Logger.Level, secret: String) throws -> [CapturingLogHandler.Record] {
        CapturingLogHandler.installed
        CapturingLogHandler.newHandlerLevel.withLock { $0 = level }
        defer { CapturingLogHandler.newHandlerLevel.withLock { $0 = .info } }
        let url = temporaryStoreURL()
        let path = try url.plainLocation(for: "test")
        CapturingLogHandler.watch(path)
        let model = try testModel()
        let store = try openStore(url, model: model)
        let id = try store.obtainPermanentIDs(for: "Employee", count: 1)[0]
        try store.save(SaveRequest(inserts: [makeSnapshot(id, in: model, ["name": .string(secret)])]))
        _ = try store.fetch(
            FetchRequest(entityName: "Employee", predicate: ObjectPredicate(format: "name == %@", secret))
        ).snapshots()
        try store.close()
        return CapturingLogHandler.records.withLock { $0[path] ?? [] }
    }

    @Test func debugShowsEveryStatementAndItsTimeButNoValue() throws {
        let records = try logged(at: .debug, secret: "s3cret-debug")
        #expect(records.contains { $0.level == .debug && $0.message.hasPrefix("INSERT INTO \"Employee\"") })
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
