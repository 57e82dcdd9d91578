// The Strata umbrella. It re-exports the vocabulary, the migration engine and the transfer
// module (JSON Lines, store copy, validation), so `import Strata` is all an application needs.
@_exported import StrataCore
@_exported import StrataMigrations
@_exported import StrataTransfer
