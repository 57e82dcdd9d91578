import Logging

extension StrataLog {
    /// Logs at `debug`, under `strata.store`, that a store opened: its URL (``StoreURL/loggedDescription``),
    /// backend, model version, whether read-only, and how long the open took since `start`. Every
    /// built-in backend calls it at the end of a successful open.
    package static func storeOpened(
        _ url: StoreURL, backend: String, model: Model, readOnly: Bool, since start: ContinuousClock.Instant
    ) {
        let logger = logger("store")
        guard logger.logLevel <= .debug else { return }
        let shown = url.loggedDescription
        logger.debug(
            "opened \(shown)",
            metadata: [
                "url": .string(shown), "backend": .string(backend), "model": .string(model.versionIdentifier),
                "readOnly": .stringConvertible(readOnly),
                "ms": .string(StoreOperationLog.milliseconds(ContinuousClock.now - start)),
            ])
    }
}
