/// Non-variadic wrappers over libcurl for Swift, which cannot call `curl_easy_setopt` /
/// `curl_easy_getinfo` (C variadics). Response bodies and headers are collected by C callbacks
/// into growable buffers, so no Swift closure crosses the C boundary.
#ifndef CCURL_H
#define CCURL_H

#include <curl/curl.h>
#include <stddef.h>

/// A growable byte buffer filled by libcurl's write or header callback.
typedef struct ccurl_buffer {
    char *data;
    size_t length;
    size_t capacity;
    /// Largest number of bytes accepted; more aborts the transfer (CURLE_WRITE_ERROR).
    size_t limit;
    /// Set to 1 when the limit was hit.
    int overflowed;
} ccurl_buffer;

void ccurl_buffer_init(ccurl_buffer *buffer, size_t limit);
void ccurl_buffer_reset(ccurl_buffer *buffer);
void ccurl_buffer_free(ccurl_buffer *buffer);

/// Global init, idempotent and thread safe (call before any other function).
CURLcode ccurl_global_init(void);

CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *list);
CURLcode ccurl_setopt_share(CURL *handle, CURLSH *share);

/// Routes the response body into `buffer` (CURLOPT_WRITEFUNCTION / WRITEDATA).
CURLcode ccurl_capture_body(CURL *handle, ccurl_buffer *buffer);
/// Routes raw header lines (every response, interim ones included) into `buffer`.
CURLcode ccurl_capture_headers(CURL *handle, ccurl_buffer *buffer);
/// Aborts the transfer as soon as `*flag` becomes nonzero (checked from the progress callback).
CURLcode ccurl_abort_on_flag(CURL *handle, volatile int *flag);
/// Sets `*flag` to 1 (atomically) from any thread.
void ccurl_raise_flag(volatile int *flag);

CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode ccurl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, const char **value);

/// A share handle for DNS cache, connection cache and TLS sessions, with its own locks.
CURLSH *ccurl_share_new(void);
void ccurl_share_free(CURLSH *share);

#endif
