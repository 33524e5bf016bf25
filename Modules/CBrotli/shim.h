// Brotli's decoder (RFC 7932) for Courier's `br` content coding.
#ifndef COURIER_CBROTLI_SHIM_H
#define COURIER_CBROTLI_SHIM_H

#include <brotli/decode.h>

#endif
