// File-system calls Swift's C modules do not declare.
#ifndef CSTRATA_FILES_SHIM_H
#define CSTRATA_FILES_SHIM_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

/// Swaps the entries at `first` and `second` (files or directories, both existing, on one file
/// system) in one step: no moment in which either path is missing. Linux's renameat2 with
/// RENAME_EXCHANGE (3.15 and later), macOS's renamex_np with RENAME_SWAP. Returns 0, or -1 with
/// errno set (ENOSYS or EINVAL where the system or file system cannot swap).
static inline int strata_exchange_paths(const char *first, const char *second) {
#if defined(__linux__) && defined(SYS_renameat2)
    return (int)syscall(SYS_renameat2, AT_FDCWD, first, AT_FDCWD, second, 2 /* RENAME_EXCHANGE */);
#elif defined(__APPLE__)
    return renamex_np(first, second, RENAME_SWAP);
#else
    errno = ENOSYS;
    return -1;
#endif
}

#endif
