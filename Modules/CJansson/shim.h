// Typed, courier_-prefixed wrappers for the jansson macros Swift cannot
// import (the type tag, the json_is_* tests) and for the flag constants that
// are function-like macros. Everything else in jansson.h imports as it is.
#ifndef COURIER_CJANSSON_SHIM_H
#define COURIER_CJANSSON_SHIM_H

#include <jansson.h>

/// json_typeof(json): the node's type tag.
static inline json_type courier_json_typeof(const json_t *json) {
    return json_typeof(json);
}

/// The flags Courier parses with: any value at the top level (as JSONDecoder
/// accepts), NUL allowed inside strings (as JSONDecoder allows), and
/// optionally duplicate keys refused.
static inline size_t courier_json_load_flags(int rejectDuplicates) {
    return JSON_DECODE_ANY | JSON_ALLOW_NUL | (rejectDuplicates ? JSON_REJECT_DUPLICATES : 0);
}

/// json_error_code(error): why a parse failed (too big an integer, bad UTF-8, …).
static inline int courier_json_error_code(const json_error_t *error) {
    return (int)json_error_code(error);
}

#endif
