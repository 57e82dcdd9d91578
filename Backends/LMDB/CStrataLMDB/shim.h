// The LMDB C API (liblmdb-dev, pkg-config "lmdb") for StrataLMDB. Nothing of it appears in a
// public Swift signature.
#ifndef CSTRATA_LMDB_SHIM_H
#define CSTRATA_LMDB_SHIM_H

#include <lmdb.h>
#include <pthread.h>
#include <errno.h>
#include <sys/types.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

/// Allocates the bytes [offset, offset + length) of the file `fd` (extending it when it is
/// shorter), as fallocate(2) with mode 0 does: returns 0, or -1 with errno set (EOPNOTSUPP when
/// the file system or the platform cannot). Unlike posix_fallocate, it never falls back to
/// writing zeros, which could overwrite bytes another process is changing.
static inline int cstrata_lmdb_reserve(int fd, off_t offset, off_t length) {
#if defined(__linux__) && defined(SYS_fallocate)
    return (int)syscall(SYS_fallocate, fd, 0, offset, length);
#else
    (void)fd; (void)offset; (void)length;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

#endif
