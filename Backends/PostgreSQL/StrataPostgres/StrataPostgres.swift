// StrataPostgres: the `postgres:` (and `postgresql:`) backend, one PostgreSQL schema per store, on
// PostgreSQL's own client library libpq (docs/PostgreSQLStore.md). It imports StrataCore, its C
// module CStrataPostgres (libpq) and Foundation: no engine, and no migration engine. Linking it
// links libpq and no other backend's library.
