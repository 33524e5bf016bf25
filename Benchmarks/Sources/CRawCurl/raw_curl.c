#include "raw_curl.h"

#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t courier_raw_discard(char *data, size_t size, size_t count, void *context) {
    (void)data;
    *(long long *)context += (long long)(size * count);
    return size * count;
}

static size_t courier_raw_to_file(char *data, size_t size, size_t count, void *context) {
    return fwrite(data, size, count, (FILE *)context) * size;
}

long courier_raw_sequential(const char *url, long count) {
    CURL *handle = curl_easy_init();
    long long bytes = 0;
    long ok = 0;
    curl_easy_setopt(handle, CURLOPT_URL, url);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, courier_raw_discard);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, &bytes);
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    for (long i = 0; i < count; i++) {
        long status = 0;
        if (curl_easy_perform(handle) == CURLE_OK) {
            curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
            if (status == 200) ok++;
        }
    }
    curl_easy_cleanup(handle);
    return ok;
}

long courier_raw_concurrent(const char *url, long count, long inflight) {
    CURLM *multi = curl_multi_init();
    long long bytes = 0;
    long started = 0, ok = 0, running = 0;
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, inflight);
    CURL **handles = calloc((size_t)inflight, sizeof(CURL *));
    for (long i = 0; i < inflight && started < count; i++, started++) {
        handles[i] = curl_easy_init();
        curl_easy_setopt(handles[i], CURLOPT_URL, url);
        curl_easy_setopt(handles[i], CURLOPT_WRITEFUNCTION, courier_raw_discard);
        curl_easy_setopt(handles[i], CURLOPT_WRITEDATA, &bytes);
        curl_easy_setopt(handles[i], CURLOPT_NOSIGNAL, 1L);
        curl_multi_add_handle(multi, handles[i]);
    }
    int still = 1;
    while (ok < count && still >= 0) {
        int numfds = 0, active = 0;
        curl_multi_perform(multi, &active);
        CURLMsg *message;
        int left = 0;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *handle = message->easy_handle;
            long status = 0;
            curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
            if (message->data.result == CURLE_OK && status == 200) ok++; else still = -1;
            curl_multi_remove_handle(multi, handle);
            if (started < count) {
                started++;
                curl_multi_add_handle(multi, handle);
            }
        }
        running = active;
        if (ok < count) curl_multi_poll(multi, NULL, 0, 1000, &numfds);
    }
    (void)running;
    for (long i = 0; i < inflight; i++) {
        if (handles[i]) {
            curl_multi_remove_handle(multi, handles[i]);
            curl_easy_cleanup(handles[i]);
        }
    }
    free(handles);
    curl_multi_cleanup(multi);
    return ok;
}

long long courier_raw_download(const char *url, const char *path) {
    FILE *file = fopen(path, "wb");
    if (!file) return -1;
    CURL *handle = curl_easy_init();
    curl_easy_setopt(handle, CURLOPT_URL, url);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, courier_raw_to_file);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, file);
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    CURLcode result = curl_easy_perform(handle);
    curl_off_t size = 0;
    curl_easy_getinfo(handle, CURLINFO_SIZE_DOWNLOAD_T, &size);
    curl_easy_cleanup(handle);
    fclose(file);
    return result == CURLE_OK ? (long long)size : -1;
}

/* The typed call by hand: GET an envelope, parse it with jansson, check the
 * code and fill a C struct from `data`, as an application in C would. */

struct courier_raw_buffer {
    char *bytes;
    size_t length;
    size_t capacity;
};

static size_t courier_raw_collect(char *data, size_t size, size_t count, void *context) {
    struct courier_raw_buffer *buffer = context;
    size_t added = size * count;
    if (buffer->length + added > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity * 2 : 4096;
        while (capacity < buffer->length + added) capacity *= 2;
        char *grown = realloc(buffer->bytes, capacity);
        if (!grown) return 0;
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->length, data, added);
    buffer->length += added;
    return added;
}

struct courier_raw_user {
    long long id;
    char *name;
    char *email;
    char *plan;
    int verified;
    double balance;
};

static int courier_raw_decode_user(const char *bytes, size_t length) {
    json_error_t error;
    json_t *root = json_loadb(bytes, length, 0, &error);
    if (!root) return 0;
    int ok = 0;
    json_t *code = json_object_get(root, "code");
    json_t *data = json_object_get(root, "data");
    if (json_is_integer(code) && json_integer_value(code) == 0 && json_is_object(data)) {
        struct courier_raw_user user;
        user.id = json_integer_value(json_object_get(data, "id"));
        user.name = strdup(json_string_value(json_object_get(data, "name")));
        user.email = strdup(json_string_value(json_object_get(data, "email")));
        user.plan = strdup(json_string_value(json_object_get(data, "plan")));
        user.verified = json_is_true(json_object_get(data, "verified"));
        user.balance = json_number_value(json_object_get(data, "balance"));
        ok = user.id == 7 && user.name && user.email && user.plan;
        free(user.name);
        free(user.email);
        free(user.plan);
    }
    json_decref(root);
    return ok;
}

long courier_raw_typed_sequential(const char *url, long count) {
    CURL *handle = curl_easy_init();
    struct courier_raw_buffer buffer = {0};
    long ok = 0;
    curl_easy_setopt(handle, CURLOPT_URL, url);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, courier_raw_collect);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, &buffer);
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    for (long i = 0; i < count; i++) {
        buffer.length = 0;
        if (curl_easy_perform(handle) == CURLE_OK) ok += courier_raw_decode_user(buffer.bytes, buffer.length);
    }
    free(buffer.bytes);
    curl_easy_cleanup(handle);
    return ok;
}

long courier_raw_typed_concurrent(const char *url, long count, long inflight) {
    CURLM *multi = curl_multi_init();
    long started = 0, finished = 0, ok = 0;
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, inflight);
    CURL **handles = calloc((size_t)inflight, sizeof(CURL *));
    struct courier_raw_buffer *buffers = calloc((size_t)inflight, sizeof(struct courier_raw_buffer));
    for (long i = 0; i < inflight && started < count; i++, started++) {
        handles[i] = curl_easy_init();
        curl_easy_setopt(handles[i], CURLOPT_URL, url);
        curl_easy_setopt(handles[i], CURLOPT_WRITEFUNCTION, courier_raw_collect);
        curl_easy_setopt(handles[i], CURLOPT_WRITEDATA, &buffers[i]);
        curl_easy_setopt(handles[i], CURLOPT_PRIVATE, &buffers[i]);
        curl_easy_setopt(handles[i], CURLOPT_NOSIGNAL, 1L);
        curl_multi_add_handle(multi, handles[i]);
    }
    while (finished < count) {
        int numfds = 0, active = 0, left = 0;
        curl_multi_perform(multi, &active);
        CURLMsg *message;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *handle = message->easy_handle;
            struct courier_raw_buffer *buffer = NULL;
            curl_easy_getinfo(handle, CURLINFO_PRIVATE, (char **)&buffer);
            if (message->data.result == CURLE_OK) ok += courier_raw_decode_user(buffer->bytes, buffer->length);
            finished++;
            curl_multi_remove_handle(multi, handle);
            buffer->length = 0;
            if (started < count) {
                started++;
                curl_multi_add_handle(multi, handle);
            }
        }
        if (finished < count) curl_multi_poll(multi, NULL, 0, 1000, &numfds);
    }
    for (long i = 0; i < inflight; i++) {
        if (handles[i]) {
            curl_multi_remove_handle(multi, handles[i]);
            curl_easy_cleanup(handles[i]);
        }
        free(buffers[i].bytes);
    }
    free(handles);
    free(buffers);
    curl_multi_cleanup(multi);
    return ok;
}
