// hiredis, the official C client of Redis, for CourierCacheRedis: the system
// library plus typed shims for what Swift cannot call or name directly.
#ifndef COURIER_CHIREDIS_SHIM_H
#define COURIER_CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>
#include <sys/time.h>

// redisCommandArgv returns void *: the reply, typed, or NULL when the
// connection failed (the context's err and errstr say why).
static inline redisReply *courier_redis_command(
    redisContext *context, int count, const char **arguments, const size_t *lengths) {
    return (redisReply *)redisCommandArgv(context, count, arguments, lengths);
}

static inline struct timeval courier_redis_timeval(long long microseconds) {
    struct timeval value;
    value.tv_sec = (time_t)(microseconds / 1000000);
    value.tv_usec = (suseconds_t)(microseconds % 1000000);
    return value;
}

#endif
