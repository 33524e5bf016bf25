// Glibc does not export mallinfo2 to Swift; see include/soak_heap.h.
