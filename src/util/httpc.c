/* httpc.c — see httpc.h. */
#include "util/httpc.h"

#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"
#include "util/utf8.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init_once(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

struct sink {
    struct mg_buf *b;
    bool over; /* the answer passed max_response */
};

static size_t on_body(char *p, size_t sz, size_t nm, void *ud)
{
    struct sink *k = ud;
    if (mg_buf_add(k->b, p, sz * nm) == 0) return sz * nm;
    k->over = true;
    return 0;
}

void mg_http_endpoint_message(const char *body, size_t len, const char *key, char *out, size_t cap)
{
    out[0] = 0;
    json_t *root = json_loadb(body, len, 0, NULL);
    json_t *e = root ? json_object_get(root, "error") : NULL;
    const char *m = json_is_string(e) ? json_string_value(e) : json_string_value(json_object_get(e, "message"));
    if (m) snprintf(out, cap, ": %s", m);
    json_decref(root);
    /* never repeat the key, even if the endpoint echoes it */
    size_t kl = key ? strlen(key) : 0;
    char *p;
    while (kl >= 4 && (p = strstr(out, key))) memset(p, '*', kl);
    size_t n = mg_utf8_valid_prefix(out, strlen(out));
    out[n] = 0;
    if (n > 200 && cap > 201) memcpy(out + mg_utf8_cut(out, n, 197), "...", 4);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

int mg_http_post_json(const struct mg_http_post *p, struct mg_buf *body, struct mg_err *err)
{
    if (strncmp(p->url, "http://", 7) != 0 && strncmp(p->url, "https://", 8) != 0)
        return mg_err_set(err, p->code_rejected, "%s '%s' is not an http:// or https:// URL", p->what, p->url);
    pthread_once(&curl_once, curl_init_once);
    struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
    char auth[600] = "";
    if (p->key && p->key[0]) {
        snprintf(auth, sizeof(auth), "Authorization: Bearer %s", p->key);
        struct curl_slist *h2 = hdr ? curl_slist_append(hdr, auth) : NULL;
        if (!h2) {
            curl_slist_free_all(hdr);
            memset(auth, 0, sizeof(auth));
            return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
        }
        hdr = h2;
    }
    if (!hdr) return mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
    body->max = p->max_response;
    int rc = -1;
    for (int attempt = 0;; attempt++) {
        long timeout_ms = (long)p->timeout_s * 1000;
        if (p->deadline_ms > 0) {
            long left = (long)(p->deadline_ms - (int64_t)mg_clock_ms());
            if (left <= 0) {
                if (attempt == 0 || !err->code)
                    mg_err_set(err, p->code_unavailable, "%s '%s' was not called: the request ran out of time",
                               p->what, p->url);
                break;
            }
            if (left < timeout_ms) timeout_ms = left;
        }
        CURL *h = curl_easy_init();
        if (!h) {
            mg_err_set(err, MG_E_NO_MEMORY, "out of memory");
            break;
        }
        mg_buf_reset(body);
        struct sink sink = {body, false};
        char cerr[CURL_ERROR_SIZE] = "";
        curl_easy_setopt(h, CURLOPT_URL, p->url);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, p->payload);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
        curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 10000 ? timeout_ms : 10000L);
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
        curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(h, CURLOPT_USERAGENT, "memgate");
        curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
        CURLcode cc = curl_easy_perform(h);
        long status = 0;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
        curl_easy_cleanup(h);
        bool retry = false;
        char msg[256];
        if (cc == CURLE_WRITE_ERROR && sink.over) {
            mg_err_set(err, p->code_unavailable, "%s '%s' answered more than %zu bytes", p->what, p->url,
                       p->max_response);
        } else if (cc != CURLE_OK) {
            mg_err_set(err, p->code_unavailable, "cannot reach %s '%s': %s", p->what, p->url,
                       cerr[0] ? cerr : curl_easy_strerror(cc));
            retry = cc != CURLE_WRITE_ERROR && cc != CURLE_UNSUPPORTED_PROTOCOL && cc != CURLE_URL_MALFORMAT;
        } else if (status != 200) {
            mg_http_endpoint_message(body->p ? body->p : "", body->len, p->key, msg, sizeof(msg));
            retry = status == 429 || status >= 500;
            mg_err_set(err, retry ? p->code_unavailable : p->code_rejected, "%s '%s' answered HTTP %ld%s", p->what,
                       p->url, status, msg);
        } else {
            rc = 0;
            break;
        }
        if (!retry || attempt >= p->retries) break;
        sleep_ms(250L << (attempt < 6 ? attempt : 6));
    }
    curl_slist_free_all(hdr);
    memset(auth, 0, sizeof(auth));
    if (rc != 0) mg_buf_reset(body);
    return rc;
}
