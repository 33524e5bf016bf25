#include "raw_curl.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>

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
