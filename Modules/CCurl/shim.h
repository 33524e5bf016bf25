// Typed, courier_-prefixed wrappers for libcurl's variadic calls, which Swift
// cannot call. One wrapper per option *type* (CURLOPTTYPE_LONG, OFF_T,
// OBJECTPOINT/STRINGPOINT, FUNCTIONPOINT per callback signature, BLOB), each
// passing libcurl's exact C type: an int where libcurl reads a long is
// undefined behaviour.
#ifndef COURIER_CCURL_SHIM_H
#define COURIER_CCURL_SHIM_H

#include <curl/curl.h>
#include <pthread.h>

#if defined(__linux__)
// glibc declares it only under _GNU_SOURCE, which must not be defined here:
// it would change system types that other modules see without it.
extern int pthread_setname_np(pthread_t thread, const char *name);
#endif

static inline CURLcode courier_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode courier_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// CURLOPTTYPE_STRINGPOINT: libcurl copies the string.
static inline CURLcode courier_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// CURLOPTTYPE_OBJECTPOINT / CBPOINT / SLISTPOINT: a pointer libcurl keeps.
static inline CURLcode courier_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode courier_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode courier_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode courier_easy_setopt_read_function(CURL *handle, CURLoption option, curl_read_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode courier_easy_setopt_seek_function(CURL *handle, CURLoption option, curl_seek_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/// CURLOPT_PREREQFUNCTION (libcurl 7.80): called before each request goes out
/// on a connection, including libcurl's own resend after a dead connection.
static inline CURLcode courier_easy_setopt_prereq_function(CURL *handle, CURLoption option, curl_prereq_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode courier_easy_setopt_xferinfo_function(CURL *handle, CURLoption option, curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode courier_easy_setopt_blob(CURL *handle, CURLoption option, struct curl_blob *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode courier_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode courier_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode courier_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode courier_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode courier_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/// curl_version_info(CURLVERSION_NOW): the macro does not import into Swift.
static inline curl_version_info_data *courier_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}

/// Names the calling thread (at most 15 bytes show), for debuggers and
/// /proc. Foundation's Thread.name can miss when set from the new thread
/// before the creating thread has recorded its pthread_t.
static inline int courier_name_current_thread(const char *name) {
#if defined(__APPLE__)
    return pthread_setname_np(name);
#else
    return pthread_setname_np(pthread_self(), name);
#endif
}

/// The CURLMsg union's result, for CURLMSG_DONE messages.
static inline CURLcode courier_message_result(const CURLMsg *message) {
    return message->data.result;
}

#endif
