import ArgumentParser
import Foundation
import Logging
import Strata

/// The tool's logging: `--log-level LEVEL` or `STRATA_LOG_LEVEL`, on standard error; nothing
/// when neither is given.
enum ToolLogging {
    /// The levels, finest first, as `--log-level` spells them.
    static let levels = Logger.Level.allCases.map(\.rawValue)

    /// The level `option` or the environment asks for, `nil` for none.
    ///
    /// - Throws: ``StrataError/Code/invalidOption`` naming the value and where it came from.
    static func level(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> Logger.Level?
    {
        let (text, source) =
            option.map { ($0, "--log-level") }
            ?? (environment["STRATA_LOG_LEVEL"].map { ($0, "STRATA_LOG_LEVEL") } ?? ("", ""))
        guard !text.isEmpty else { return nil }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw StrataError(
                .invalidOption, "\(source) '\(text)' is not a log level; use one of \(levels.joined(separator: ", "))",
                location: ["option": source, "value": text])
        }
        return level
    }

    /// Sends every logger's messages at `level` and above to standard error, or nowhere.
    static func start(_ level: Logger.Level?) {
        LoggingSystem.bootstrap { label in
            guard let level else { return SwiftLogNoOpLogHandler(label) }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
