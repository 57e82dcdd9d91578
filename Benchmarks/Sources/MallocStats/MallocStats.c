#include "MallocStats.h"
#if defined(__linux__)
#include <malloc.h>
#endif
#if defined(__GLIBC__)
size_t bench_malloced_bytes(void) { return mallinfo2().uordblks; }
#else
size_t bench_malloced_bytes(void) { return 0; }
#endif
