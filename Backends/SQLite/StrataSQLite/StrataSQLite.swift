// StrataSQLite: the `sqlite:` backend, one SQLite database file per store, with native queries and
// native migration steps (docs/SQLiteStore.md). It imports StrataCore, its C module CStrataSQLite
// (libsqlite3) and Foundation: no engine, and no migration engine (it adopts StrataCore's
// `NativeMigrating`). Linking it links libsqlite3 and no other backend's library.
