// jansson for the hand-written baselines: the type-tag macro as a function.
#include <jansson.h>
static inline json_type bench_json_typeof(const json_t *json) { return json_typeof(json); }
