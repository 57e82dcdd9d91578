#ifndef CSTRATA_SQLITE_SHIM_H
#define CSTRATA_SQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT as a callable value: Swift cannot import the macro's cast of -1 to a function pointer.
static inline sqlite3_destructor_type cstrata_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// SQLITE_STATIC, for buffers that outlive the statement step.
static inline sqlite3_destructor_type cstrata_sqlite_static(void) { return SQLITE_STATIC; }

#include <errno.h>
#include <stdio.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

/// Renames `from` to `to` unless `to` exists (then fails with EEXIST): renameat2's
/// RENAME_NOREPLACE on Linux, renamex_np's RENAME_EXCL on Darwin; elsewhere, or where the
/// filesystem cannot, fails with ENOSYS or EINVAL and renames nothing.
static inline int cstrata_rename_noreplace(const char *from, const char *to) {
#if defined(__linux__) && defined(SYS_renameat2)
    return (int)syscall(SYS_renameat2, -100 /* AT_FDCWD */, from, -100, to, 1 /* RENAME_NOREPLACE */);
#elif defined(__APPLE__)
    return renamex_np(from, to, RENAME_EXCL);
#else
    errno = ENOSYS;
    return -1;
#endif
}

#endif
