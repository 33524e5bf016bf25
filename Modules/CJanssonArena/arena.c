#include "courier_jansson_arena.h"

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define COURIER_HEADER 16
#define COURIER_TAG_ARENA 0xA7E0A7E0A7E0A7E0ULL
#define COURIER_TAG_HEAP 0x4EA94EA94EA94EA9ULL

struct courier_chunk {
    struct courier_chunk *next;
    size_t capacity;
    size_t used;
    // Blocks follow, 16-byte aligned.
};

struct courier_arena {
    struct courier_chunk *chunks;
    size_t next_capacity;
};

static __thread courier_arena *courier_current;

static struct courier_chunk *courier_chunk_new(size_t capacity) {
    struct courier_chunk *chunk = malloc(sizeof(struct courier_chunk) + capacity);
    if (!chunk) return NULL;
    chunk->next = NULL;
    chunk->capacity = capacity;
    chunk->used = 0;
    return chunk;
}

static void *courier_alloc(size_t size) {
    size_t total = (size + COURIER_HEADER + 15) & ~(size_t)15;
    courier_arena *arena = courier_current;
    if (arena) {
        struct courier_chunk *chunk = arena->chunks;
        if (!chunk || chunk->used + total > chunk->capacity) {
            size_t capacity = arena->next_capacity;
            while (capacity < total) capacity *= 2;
            struct courier_chunk *fresh = courier_chunk_new(capacity);
            if (!fresh) return NULL;
            fresh->next = chunk;
            arena->chunks = fresh;
            arena->next_capacity = capacity * 2;
            chunk = fresh;
        }
        char *block = (char *)(chunk + 1) + chunk->used;
        chunk->used += total;
        *(uint64_t *)block = COURIER_TAG_ARENA;
        return block + COURIER_HEADER;
    }
    char *block = malloc(total);
    if (!block) return NULL;
    *(uint64_t *)block = COURIER_TAG_HEAP;
    return block + COURIER_HEADER;
}

static void courier_free(void *pointer) {
    if (!pointer) return;
    char *block = (char *)pointer - COURIER_HEADER;
    if (*(uint64_t *)block == COURIER_TAG_HEAP) {
        *(uint64_t *)block = 0;
        free(block);
    }
    // An arena block: released with its arena.
}

static pthread_once_t courier_install_once = PTHREAD_ONCE_INIT;

static void courier_install(void) { json_set_alloc_funcs(courier_alloc, courier_free); }

void courier_jansson_install_allocator(void) { pthread_once(&courier_install_once, courier_install); }

courier_arena *courier_arena_begin(size_t input_length) {
    courier_jansson_install_allocator();
    courier_arena *arena = malloc(sizeof(courier_arena));
    if (!arena) return NULL;
    arena->chunks = NULL;
    // jansson needs several times the input for its nodes and tables.
    size_t first = input_length * 6 + 4096;
    arena->next_capacity = first < (64u << 20) ? first : (64u << 20);
    courier_current = arena;
    return arena;
}

void courier_arena_end(void) { courier_current = NULL; }

void courier_arena_free(courier_arena *arena) {
    if (!arena) return;
    struct courier_chunk *chunk = arena->chunks;
    while (chunk) {
        struct courier_chunk *next = chunk->next;
        free(chunk);
        chunk = next;
    }
    free(arena);
}
