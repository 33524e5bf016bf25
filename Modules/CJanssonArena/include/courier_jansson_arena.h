// An arena behind jansson's allocator hooks, so that a parsed tree is carved
// from a few large blocks and released in one go, instead of one malloc and
// one free per node.
//
// jansson's hooks are process-global, so they stay correct for everyone:
// every block carries a 16-byte header that says where it came from. A
// thread that has an arena open (courier_arena_begin) allocates from it;
// any other allocation, on any thread, goes to malloc. free() releases
// malloc'd blocks and ignores arena blocks, which go when their arena does.
// A tree that other code built with jansson before the hooks went in would
// be leaked, never corrupted, if freed afterwards: its blocks carry no tag.
#ifndef COURIER_JANSSON_ARENA_H
#define COURIER_JANSSON_ARENA_H

#include <stddef.h>

typedef struct courier_arena courier_arena;

/// Installs the hooks (once per process; later calls do nothing).
void courier_jansson_install_allocator(void);

/// Creates an arena sized for an input of `input_length` bytes and makes it
/// the calling thread's current one. Returns NULL when memory is short.
courier_arena *courier_arena_begin(size_t input_length);

/// Stops allocating from the calling thread's arena (the arena lives on).
void courier_arena_end(void);

/// Releases every block of `arena`. The tree built in it must not be used,
/// or decref'd, afterwards.
void courier_arena_free(courier_arena *arena);

#endif
