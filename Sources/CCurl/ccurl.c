#include "ccurl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_result = CURLE_OK;

static void global_init_once(void) { global_result = curl_global_init(CURL_GLOBAL_DEFAULT); }

CURLcode ccurl_global_init(void) {
    pthread_once(&global_once, global_init_once);
    return global_result;
}

void ccurl_buffer_init(ccurl_buffer *buffer, size_t limit) {
    buffer->data = NULL;
    buffer->length = 0;
    buffer->capacity = 0;
    buffer->limit = limit;
    buffer->overflowed = 0;
}

void ccurl_buffer_reset(ccurl_buffer *buffer) {
    buffer->length = 0;
    buffer->overflowed = 0;
}

void ccurl_buffer_free(ccurl_buffer *buffer) {
    free(buffer->data);
    buffer->data = NULL;
    buffer->length = 0;
    buffer->capacity = 0;
}

static size_t append(char *ptr, size_t size, size_t nmemb, void *userdata) {
    ccurl_buffer *buffer = (ccurl_buffer *)userdata;
    size_t count = size * nmemb;
    if (buffer->length + count > buffer->limit) {
        buffer->overflowed = 1;
        return 0; /* aborts the transfer with CURLE_WRITE_ERROR */
    }
    if (buffer->length + count > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->length + count) capacity *= 2;
        char *grown = realloc(buffer->data, capacity);
        if (grown == NULL) return 0;
        buffer->data = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->length, ptr, count);
    buffer->length += count;
    return count;
}

CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *list) {
    return curl_easy_setopt(handle, option, list);
}

CURLcode ccurl_setopt_share(CURL *handle, CURLSH *share) {
    return curl_easy_setopt(handle, CURLOPT_SHARE, share);
}

CURLcode ccurl_capture_body(CURL *handle, ccurl_buffer *buffer) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, append);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_WRITEDATA, (void *)buffer);
}

CURLcode ccurl_capture_headers(CURL *handle, ccurl_buffer *buffer) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, append);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_HEADERDATA, (void *)buffer);
}

static int progress(void *clientp, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    volatile int *flag = (volatile int *)clientp;
    return __atomic_load_n(flag, __ATOMIC_SEQ_CST) ? 1 : 0;
}

CURLcode ccurl_abort_on_flag(CURL *handle, volatile int *flag) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, progress);
    if (code != CURLE_OK) return code;
    code = curl_easy_setopt(handle, CURLOPT_XFERINFODATA, (void *)flag);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
}

void ccurl_raise_flag(volatile int *flag) { __atomic_store_n(flag, 1, __ATOMIC_SEQ_CST); }

CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode ccurl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode ccurl_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}

/* One mutex per curl_lock_data kind; libcurl asks for the lock around every shared access. */
static pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
static pthread_once_t share_once = PTHREAD_ONCE_INIT;

static void share_locks_init(void) {
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&share_locks[i], NULL);
}

static void share_lock(CURL *handle, curl_lock_data data, curl_lock_access access, void *userptr) {
    (void)handle;
    (void)access;
    (void)userptr;
    pthread_mutex_lock(&share_locks[data]);
}

static void share_unlock(CURL *handle, curl_lock_data data, void *userptr) {
    (void)handle;
    (void)userptr;
    pthread_mutex_unlock(&share_locks[data]);
}

CURLSH *ccurl_share_new(void) {
    pthread_once(&share_once, share_locks_init);
    CURLSH *share = curl_share_init();
    if (share == NULL) return NULL;
    curl_share_setopt(share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    return share;
}

void ccurl_share_free(CURLSH *share) { curl_share_cleanup(share); }
