#ifndef COURIER_RAW_CURL_H
#define COURIER_RAW_CURL_H

/// GETs `url` `count` times, one after another, on one reused easy handle.
/// Returns how many answered 200.
long courier_raw_sequential(const char *url, long count);

/// GETs `url` `count` times with `inflight` transfers at once on a multi handle.
long courier_raw_concurrent(const char *url, long count, long inflight);

/// Downloads `url` to the file at `path`; returns the bytes written, or -1.
long long courier_raw_download(const char *url, const char *path);

/// The typed call by hand: GETs an envelope `count` times, parses each with
/// jansson and fills a C struct from `data`. Returns how many decoded.
long courier_raw_typed_sequential(const char *url, long count);

/// The same with `inflight` transfers at once on a multi handle.
long courier_raw_typed_concurrent(const char *url, long count, long inflight);

#endif
