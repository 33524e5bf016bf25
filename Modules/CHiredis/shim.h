// hiredis, the official C client of Redis, for CourierCacheRedis: the system
// library plus typed shims for what Swift cannot call or name directly.
#ifndef COURIER_CHIREDIS_SHIM_H
#define COURIER_CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>
#include <sys/time.h>

// Queues a command in the context's output buffer without sending it (a
// pipeline): REDIS_OK or REDIS_ERR.
static inline int courier_redis_append(
    redisContext *context, int count, const char **arguments, const size_t *lengths) {
    return redisAppendCommandArgv(context, count, arguments, lengths);
}

// Sends what is queued, then reads the next reply, typed; NULL when the
// connection failed.
static inline redisReply *courier_redis_next_reply(redisContext *context) {
    void *reply = NULL;
    if (redisGetReply(context, &reply) != REDIS_OK) return NULL;
    return (redisReply *)reply;
}

static inline struct timeval courier_redis_timeval(long long microseconds) {
    struct timeval value;
    value.tv_sec = (time_t)(microseconds / 1000000);
    value.tv_usec = (suseconds_t)(microseconds % 1000000);
    return value;
}

#endif
