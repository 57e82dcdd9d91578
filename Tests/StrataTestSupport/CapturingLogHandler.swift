import Foundation
import Logging
import StrataCore

/// A swift-log handler that keeps what Strata logs, for tests of its logging.
///
/// swift-log's bootstrap runs once per process, so every test that captures goes through this
/// one handler, installed on first use. ``capture(at:mentioning:_:)`` runs one capture at a time
/// in the process: the level new loggers get is the capture's while it runs, and `info` (the
/// level at which Strata is silent) otherwise.
package struct CapturingLogHandler: LogHandler {
    /// One message.
    package struct Record: Sendable, CustomStringConvertible {
        /// The logger's label (`strata.lmdb`).
        package var label: String
        package var level: Logger.Level
        package var message: String
        /// The logger's and the message's metadata, as text.
        package var metadata: [String: String]

        /// `debug strata.lmdb: fetched Employee [entity=Employee, ms=0.012]`.
        package var description: String {
            "\(level) \(label): \(message) \(metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })"
        }

        /// Whether the message or a metadata value contains `text`.
        package func mentions(_ text: String) -> Bool {
            message.contains(text) || metadata.values.contains { $0.contains(text) }
        }
    }

    private static let captured = Locked<(token: String, records: [Record])?>(nil)
    private static let newHandlerLevel = Locked(Logger.Level.info)
    private static let oneCaptureAtATime = NSLock()
    private static let installed: Void = LoggingSystem.bootstrap { label in
        CapturingLogHandler(label: label, logLevel: newHandlerLevel.withLock { $0 })
    }

    private let label: String
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]

    private init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        let record = Record(
            label: label, level: event.level, message: "\(event.message)", metadata: all.mapValues { "\($0)" })
        Self.captured.withLock { captured in
            guard let token = captured?.token, record.mentions(token) else { return }
            captured?.records.append(record)
        }
    }

    /// Runs `body` with the loggers created meanwhile at `level`, and returns the records whose
    /// message or metadata mention `token` (a file name of the test's own, an entity name only it
    /// uses), so that other tests running at the same time do not mix in.
    package static func capture(
        at level: Logger.Level, mentioning token: String, _ body: () throws -> Void
    ) throws -> [Record] {
        installed
        oneCaptureAtATime.lock()
        defer { oneCaptureAtATime.unlock() }
        newHandlerLevel.withLock { $0 = level }
        captured.withLock { $0 = (token, []) }
        defer {
            newHandlerLevel.withLock { $0 = .info }
            captured.withLock { $0 = nil }
        }
        try body()
        return captured.withLock { $0?.records ?? [] }
    }
}
