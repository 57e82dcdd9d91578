// The Strata engine. It re-exports the vocabulary and the migration engine, so `import Strata`
// is all an application needs.
@_exported import StrataCore
@_exported import StrataMigrations
