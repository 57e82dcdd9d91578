#ifndef CSCALESUPPORT_H
#define CSCALESUPPORT_H

#include <stddef.h>

/// Bytes the C heap has handed out and not taken back (glibc's mallinfo2 `uordblks`), or 0
/// where that is not available.
size_t cscale_heap_in_use(void);

#endif
