// Strata: the umbrella. The engine with every built-in backend registered (`BuiltInBackends`); it
// re-exports the engine, the vocabulary, the migration engine and the transfer module, so
// `import Strata` is all an application needs. It may import every Strata module; nothing of ours
// imports it but the `strata` tool. A program that wants some backends only imports StrataEngine
// and those backends instead.
//
// Re-exported names: short names such as `Value`, `Model`, `Entity`, `Sort` and `Snapshot` are
// Strata's vocabulary, used by every document and example, so they stay public and re-exported.
// They do not get in the way of an application's own types: a type the application declares
// (`struct Value`) hides the imported one in its module without ambiguity, and Strata's stays
// reachable as `Strata.Value` (UserNameShadowingTests). Helpers only Strata's modules use (its
// lock, JSON tree, hashing, file checks) are `package`, so they are not re-exported at all.
@_exported import StrataCore
@_exported import StrataEngine
@_exported import StrataMigrations
@_exported import StrataTransfer
