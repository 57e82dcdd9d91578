// StrataCore: the vocabulary every other Strata module speaks. The model, values, object IDs,
// snapshots, predicates and their reference semantics, requests, errors, the store and backend
// protocols, and the migration vocabulary backends adopt (steps, mappings, stages,
// `NativeMigrating`, `StoreReplacing`). It imports Foundation, Synchronization and the C library
// only, never another Strata module. Helpers only Strata's modules use are `package`.
