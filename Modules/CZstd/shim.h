// Zstandard's streaming decoder (RFC 8878) for Courier's `zstd` content coding.
#ifndef COURIER_CZSTD_SHIM_H
#define COURIER_CZSTD_SHIM_H

#include <zstd.h>

#endif
