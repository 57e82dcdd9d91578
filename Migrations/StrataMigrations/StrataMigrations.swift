// StrataMigrations: the migration engine. It diffs model versions and infers the mapping, plans
// steps, runs custom stages and executes each step, natively through a backend's
// `NativeMigrating` or with the streaming executor (`StoreMigrator`, docs/Migrations.md). It
// imports StrataCore (and Foundation) only: no engine, no backend. The vocabulary it shares with
// backends (steps, mappings, stages, `NativeMigrating`) is StrataCore's, re-exported here like
// the rest of the vocabulary (see Sources/Strata/Strata.swift on its short names).
@_exported import StrataCore
