// StrataTortureKit: what the reliability tests and the `strata-torture` executable share (the
// crash-test model, driver and state, the contention worker; docs/Reliability.md). Not a product.
// It imports StrataCore and the persistent backends (SQLite, LMDB, XML), never the engine.
