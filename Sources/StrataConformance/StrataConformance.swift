// StrataConformance: the conformance kit, a library product for the authors of backends. It runs
// the checks every `StoreBackend` and `PersistentStore` must pass (docs/StoreProtocol.md) against
// a backend given as a `ConformanceSubject`. It imports StrataCore (and Foundation, Dispatch)
// only: no engine, no migration engine, no built-in backend.
