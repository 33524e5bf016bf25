// hiredis for the raw baseline: GET from C, as an application in C would.
#include <hiredis/hiredis.h>

static inline long long courier_bench_redis_get(redisContext *context, const char *key) {
    redisReply *reply = (redisReply *)redisCommand(context, "GET %s", key);
    if (reply == NULL) return -1;
    long long length = reply->type == REDIS_REPLY_STRING ? (long long)reply->len : -1;
    freeReplyObject(reply);
    return length;
}
