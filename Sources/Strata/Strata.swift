// The Strata umbrella: the engine with every built-in backend registered. It re-exports the
// engine, the vocabulary, the migration engine and the transfer module (JSON Lines, store copy,
// validation), so `import Strata` is all an application needs. It may import every Strata module;
// nothing of ours imports it but the `strata` tool. A program that wants some backends only
// imports StrataEngine and those backends instead.
@_exported import StrataCore
@_exported import StrataEngine
@_exported import StrataMigrations
@_exported import StrataTransfer
