#ifndef CSTRATA_SQLITE_SHIM_H
#define CSTRATA_SQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT as a callable value: Swift cannot import the macro's cast of -1 to a function pointer.
static inline sqlite3_destructor_type cstrata_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// SQLITE_STATIC, for buffers that outlive the statement step.
static inline sqlite3_destructor_type cstrata_sqlite_static(void) { return SQLITE_STATIC; }

#endif
