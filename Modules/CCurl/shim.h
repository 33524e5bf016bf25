// Typed, courier_-prefixed wrappers for libcurl's variadic calls, which Swift
// cannot call. One wrapper per option *type* (CURLOPTTYPE_LONG, OFF_T,
// OBJECTPOINT/STRINGPOINT, FUNCTIONPOINT per callback signature, BLOB), each
// passing libcurl's exact C type: an int where libcurl reads a long is
// undefined behaviour.
#ifndef COURIER_CCURL_SHIM_H
#define COURIER_CCURL_SHIM_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdint.h>

#if defined(__linux__)
#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#endif

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

static inline CURLcode courier_easy_setopt_opensocket_function(CURL *handle, CURLoption option, curl_opensocket_callback value) {
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

static inline CURLcode courier_easy_getinfo_socket(CURL *handle, CURLINFO info, curl_socket_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// curl_ws_recv, with the frame's flags and bytes left copied out: the meta
/// pointer's constness (and the struct's tail) differ between libcurl versions.
static inline CURLcode courier_ws_recv(CURL *handle, void *buffer, size_t length, size_t *received,
                                       int *flags, curl_off_t *bytesLeft) {
    struct curl_ws_frame *meta = NULL;
    CURLcode result = curl_ws_recv(handle, buffer, length, received, (void *)&meta);
    if (result == CURLE_OK && meta) {
        *flags = meta->flags;
        *bytesLeft = meta->bytesleft;
    }
    return result;
}

static inline CURLMcode courier_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLMcode courier_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLMcode courier_multi_setopt_socket_function(CURLM *multi, curl_socket_callback value) {
    return curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, value);
}

static inline CURLMcode courier_multi_setopt_timer_function(CURLM *multi, curl_multi_timer_callback value) {
    return curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, value);
}

#if defined(__linux__)
// epoll for the engine's socket-driven loop. `struct epoll_event` is packed
// on x86-64, so Swift never touches it: these wrappers take and give plain
// descriptors and event masks.

/// A close-on-exec epoll instance, or -1 (errno set).
static inline int courier_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

/// Watches `fd` for `events` (EPOLLIN / EPOLLOUT): changes its registration
/// when `registered`, else adds it. Either falls back to the other, for a
/// descriptor closed and reused (closing took it out of the set) or added
/// behind the caller's back; 0 or an errno.
static inline int courier_epoll_watch(int epoll, int fd, uint32_t events, _Bool registered) {
    struct epoll_event event = { .events = events, .data = { .fd = fd } };
    int first = registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (epoll_ctl(epoll, first, fd, &event) == 0) return 0;
    if (errno != (registered ? ENOENT : EEXIST)) return errno;
    int second = registered ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
    return epoll_ctl(epoll, second, fd, &event) == 0 ? 0 : errno;
}

/// Stops watching `fd`; a descriptor already closed (and so already gone
/// from the set) is not an error.
static inline void courier_epoll_unwatch(int epoll, int fd) {
    struct epoll_event event = { 0 };
    (void)epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &event);
}

/// Waits up to `timeout` ms (-1: no limit) for at most `capacity` ready
/// descriptors, written to `fds` and `events`; the count, 0 on timeout or
/// signal, -1 on another error (errno set).
static inline int courier_epoll_wait(int epoll, int *fds, uint32_t *events, int capacity, int timeout) {
    struct epoll_event ready[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll, ready, capacity, timeout);
    if (count < 0) return errno == EINTR ? 0 : -1;
    for (int index = 0; index < count; index++) {
        fds[index] = ready[index].data.fd;
        events[index] = ready[index].events;
    }
    return count;
}

/// A close-on-exec, non-blocking eventfd: the engine's wake-up.
static inline int courier_eventfd_create(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

/// Wakes whoever waits on `fd`; safe from any thread. A full counter
/// (EAGAIN) means a wake-up is already pending, which is as good.
static inline void courier_eventfd_signal(int fd) {
    uint64_t one = 1;
    (void)!write(fd, &one, sizeof one);
}

/// Resets the counter after a wake-up.
static inline void courier_eventfd_drain(int fd) {
    uint64_t value;
    (void)!read(fd, &value, sizeof value);
}
#endif

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
