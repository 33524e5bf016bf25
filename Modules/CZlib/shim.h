// zlib for CourierCurl's content decoding. `inflateInit2` is a macro that
// Swift cannot call; the wrapper passes zlib's version and stream size as
// the macro does.
#ifndef COURIER_CZLIB_SHIM_H
#define COURIER_CZLIB_SHIM_H

#include <zlib.h>

static inline int courier_inflate_init(z_stream *stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
