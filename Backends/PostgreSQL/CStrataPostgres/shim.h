#ifndef CSTRATA_POSTGRES_SHIM_H
#define CSTRATA_POSTGRES_SHIM_H

#include <libpq-fe.h>

#endif
