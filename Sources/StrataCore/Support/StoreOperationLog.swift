import Logging

/// A store's log of its reads and writes, for backends: a logger named `strata.COMPONENT` with
/// the store's file as metadata, decided when the store opens (a store opened while the logger
/// wants nothing finer than `info` costs one check per operation, and reads no clock).
///
/// Messages carry the entity, the operation's shape (row counts, the access path) and its time
/// in milliseconds (`ms`); never an attribute value.
package struct StoreOperationLog: Sendable {
    /// The logger, or `nil` when it does not want `debug`.
    private let logger: Logger?

    /// The log of the store at `path`, for the component `component` (`lmdb`, `xml`).
    package init(component: String, path: String) {
        var logger = StrataLog.logger(component)
        logger[metadataKey: "file"] = .string(path)
        self.logger = logger.logLevel <= .debug ? logger : nil
    }

    /// Whether operations are logged (and timed).
    package var isEnabled: Bool { logger != nil }

    /// Runs `body` and logs at `debug` the message and metadata `describe` gives for its result,
    /// with the time it took (`ms`); when the log is off, only runs `body`.
    package func timed<Result>(
        _ body: () throws -> Result, _ describe: (Result) -> (message: String, metadata: [String: String])
    ) rethrows -> Result {
        guard let logger else { return try body() }
        let start = ContinuousClock.now
        let result = try body()
        let elapsed = ContinuousClock.now - start
        let (message, metadata) = describe(result)
        var logged = metadata.mapValues { Logger.MetadataValue.string($0) }
        logged["ms"] = .string(Self.milliseconds(elapsed))
        logger.debug("\(message)", metadata: logged)
        return result
    }

    /// `elapsed` in milliseconds with three decimals (`0.077`).
    package static func milliseconds(_ elapsed: Duration) -> String {
        let (seconds, attoseconds) = elapsed.components
        let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        let text = String(microseconds % 1_000)
        return "\(microseconds / 1_000)." + String(repeating: "0", count: 3 - text.count) + text
    }
}

extension SaveRequest {
    /// What a store's log says about a save: how many objects it inserts, updates and deletes,
    /// and of which entities (comma-separated, sorted); never a value.
    package var loggedMetadata: [String: String] {
        var entities = Set(inserts.map(\.objectID.entityName))
        entities.formUnion(updates.map(\.snapshot.objectID.entityName))
        entities.formUnion(deletes.map(\.objectID.entityName))
        return [
            "inserts": String(inserts.count), "updates": String(updates.count), "deletes": String(deletes.count),
            "entities": entities.sorted().joined(separator: ","),
        ]
    }
}
