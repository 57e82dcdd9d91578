#ifndef MALLOC_STATS_H
#define MALLOC_STATS_H
#include <stddef.h>

/// Bytes allocated with malloc and not yet freed (glibc's mallinfo2().uordblks; 0 elsewhere).
size_t bench_malloced_bytes(void);

#endif
