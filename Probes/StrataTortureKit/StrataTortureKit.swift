// StrataTortureKit: what the reliability tests and the `strata-torture` executable share (the
// crash-test model, driver and state, the contention worker; docs/Reliability.md). Not a product.
// It imports StrataCore, the persistent backends (SQLite, LMDB, XML) and StrataTestSupport (its
// seeded generator), never the engine.
