// StrataLMDB: the `lmdb:` backend, one LMDB environment (a directory) per store, with native
// queries and native migration steps (docs/LMDBStore.md). It imports StrataCore, its C module
// CStrataLMDB (liblmdb) and Foundation: no engine, and no migration engine (it adopts StrataCore's
// `NativeMigrating`). Linking it links liblmdb and no other backend's library.
