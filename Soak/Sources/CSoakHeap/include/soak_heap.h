#ifndef SOAK_HEAP_H
#define SOAK_HEAP_H

#include <stddef.h>
#if defined(__linux__)
#include <features.h>
#endif

#if defined(__GLIBC__)
#include <malloc.h>
#endif

/// Bytes the C heap has handed out and not taken back (glibc's mallinfo2,
/// summed over every arena: small chunks plus mmapped ones), or -1 where glibc
/// is not the allocator (the soak then judges resident memory only). Unlike resident memory it does not count free
/// memory the allocator keeps, so fragmentation does not show as growth.
static inline long long soak_heap_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return (long long)(info.uordblks + info.hblkhd);
#else
    return -1;
#endif
}

#endif
