/* fakehttp.h — for tests that stand up a loopback HTTP endpoint with
 * libmicrohttpd (an embeddings API, a chat endpoint): the request body,
 * gathered over the access handler's calls. */
#ifndef MG_T_FAKEHTTP_H
#define MG_T_FAKEHTTP_H

#include <microhttpd.h>
#include <stddef.h>

struct mg_t_body {
    char *p; /* NUL-terminated; NULL while empty */
    size_t n;
};

/* In the access handler: NULL while the body is still coming (return
 * MHD_YES), then the whole of it. */
struct mg_t_body *mg_t_body_gather(void **con_cls, const char *data, size_t *size);
/* The daemon's MHD_OPTION_NOTIFY_COMPLETED: frees the body. */
void mg_t_body_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode tc);

#endif
