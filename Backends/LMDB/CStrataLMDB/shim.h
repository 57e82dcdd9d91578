// The LMDB C API (liblmdb-dev, pkg-config "lmdb") for StrataLMDB. Nothing of it appears in a
// public Swift signature.
#ifndef CSTRATA_LMDB_SHIM_H
#define CSTRATA_LMDB_SHIM_H

#include <lmdb.h>
#include <pthread.h>

#endif
