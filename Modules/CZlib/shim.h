// zlib for Courier's content codings. `inflateInit2` and `deflateInit2` are
// macros that Swift cannot call; the wrappers pass zlib's version and stream
// size as the macros do.
#ifndef COURIER_CZLIB_SHIM_H
#define COURIER_CZLIB_SHIM_H

#include <zlib.h>

static inline int courier_inflate_init(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

static inline int courier_deflate_init(z_stream *stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}

#endif
