// StrataInMemory: the `memory:` backend, a store held in the process's memory (docs/StoreProtocol.md).
// It imports StrataCore (and Synchronization) only: no engine, no migration engine, no C library.
// An application registers `InMemoryBackend` in its `StoreRegistry`; `import Strata` registers it
// already.
