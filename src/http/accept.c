/* accept.c — connections per client address (issue 38, V5): libmicrohttpd's
 * own cap per address closes the connections past it without a word to us,
 * so the count is ours. The accept policy callback (the listening thread,
 * one connection at a time) refuses a connection whose address holds
 * http_max_per_address already, and audits the refusal through the gate's
 * one refusal point (op request_refused, code too_many_connections, what
 * "connection from ADDRESS": a flood is folded per address like every
 * refusal). MHD's connection notifications count a connection in when it
 * starts and out when it closes, so one refused later by MHD's total cap
 * (MG_HTTP_CONN_LIMIT) is never counted. */
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "http/internal.h"
#include "request/gate.h"
#include "util/err.h"

/* An address as a key: the 4 or 16 bytes of IPv4 or IPv6 (the port left out). */
struct addr_key {
    unsigned char b[16];
    unsigned char len;
};

struct slot {
    struct addr_key k;
    unsigned n; /* connections open from it */
};

/* At most MG_HTTP_CONN_LIMIT connections are open, so at most that many
 * addresses hold a count: a linear table, swap-removed at 0. */
struct mg__conns {
    pthread_mutex_t mu;
    unsigned cap; /* per address; 0: none */
    struct slot v[MG_HTTP_CONN_LIMIT];
    size_t n;
};

static bool key_of(const struct sockaddr *sa, struct addr_key *k)
{
    memset(k, 0, sizeof(*k));
    if (sa && sa->sa_family == AF_INET) {
        memcpy(k->b, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
        k->len = 4;
        return true;
    }
    if (sa && sa->sa_family == AF_INET6) {
        memcpy(k->b, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
        k->len = 16;
        return true;
    }
    return false;
}

static struct slot *find(struct mg__conns *t, const struct addr_key *k)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].k.len == k->len && memcmp(t->v[i].k.b, k->b, k->len) == 0) return &t->v[i];
    return NULL;
}

struct mg__conns *mg__conns_new(unsigned cap)
{
    struct mg__conns *t = calloc(1, sizeof(*t));
    if (!t) return NULL;
    pthread_mutex_init(&t->mu, NULL);
    t->cap = cap;
    return t;
}

void mg__conns_free(struct mg__conns *t)
{
    if (!t) return;
    pthread_mutex_destroy(&t->mu);
    free(t);
}

unsigned mg__conns_open(struct mg__conns *t, const struct sockaddr *sa)
{
    struct addr_key k;
    if (!key_of(sa, &k)) return 0;
    pthread_mutex_lock(&t->mu);
    struct slot *s = find(t, &k);
    unsigned n = s ? s->n : 0;
    pthread_mutex_unlock(&t->mu);
    return n;
}

enum MHD_Result mg__on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    struct mg_http *h = cls;
    unsigned cap = h->conns->cap;
    if (cap == 0 || mg__conns_open(h->conns, addr) < cap) return MHD_YES;
    char host[64] = "?", what[96];
    if (getnameinfo(addr, addrlen, host, sizeof(host), NULL, 0, NI_NUMERICHOST) != 0) snprintf(host, sizeof(host), "?");
    snprintf(what, sizeof(what), "connection from %s", host);
    mg_gate_refusal(h->srv, NULL, "request_refused", what, MG_E_TOO_MANY_CONNECTIONS);
    return MHD_NO;
}

/* *socket_context: the slot's key, held from STARTED to CLOSED (NULL: not counted). */
void mg__on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                       enum MHD_ConnectionNotificationCode toe)
{
    struct mg_http *h = cls;
    struct mg__conns *t = h->conns;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        struct addr_key k;
        if (!ci || !key_of(ci->client_addr, &k)) return;
        struct addr_key *held = malloc(sizeof(*held));
        if (!held) return; /* not counted: it closes uncounted too */
        *held = k;
        pthread_mutex_lock(&t->mu);
        struct slot *s = find(t, &k);
        if (!s && t->n < MG_HTTP_CONN_LIMIT) {
            s = &t->v[t->n++];
            s->k = k;
            s->n = 0;
        }
        if (s) s->n++;
        pthread_mutex_unlock(&t->mu);
        if (s) *socket_context = held;
        else free(held);
        return;
    }
    if (toe != MHD_CONNECTION_NOTIFY_CLOSED || !*socket_context) return;
    struct addr_key *held = *socket_context;
    pthread_mutex_lock(&t->mu);
    struct slot *s = find(t, held);
    if (s && --s->n == 0) *s = t->v[--t->n];
    pthread_mutex_unlock(&t->mu);
    free(held);
    *socket_context = NULL;
}
