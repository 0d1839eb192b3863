/* dynlib.c — libcurl, libgit2, libmicrohttpd, libpq and libcrypto, loaded when first called.
 *
 * Those three pull in about 35 more shared libraries (GnuTLS, Kerberos,
 * LDAP, libssh2, mbedTLS, ...). Linked at start-up, loading and relocating
 * them was 6 of the ~9 ms every `memgate` process paid before doing
 * anything, though most commands (search, outline, refs, repos, status ...)
 * never fetch a URL, open a git repository or serve HTTP. So memgate is not
 * linked against them: this file defines each function memgate calls, under
 * the library's own name and with the prototype its header declares (the
 * compiler checks them), and the first call dlopen()s the library and
 * forwards. A library that cannot be loaded makes every call fail the way the
 * library itself reports failure (NULL, -1, CURLE_FAILED_INIT, MHD_NO), after
 * one line on stderr naming the Debian package to install; the caller's own
 * error handling does the rest.
 *
 * Adding a call to one of these libraries means adding its line below (the
 * link fails with "undefined reference" until then).
 *
 * Sections:
 *   1. loading a library, resolving a symbol
 *   2. libcurl
 *   3. libpq — storage = postgres://...: store/sql.c, store/pg.c
 *   4. libmicrohttpd
 *   5. libgit2
 *   6. libcrypto — OAuth access tokens' signatures: oauth/jwt.c (linked, it
 *      cost every process 6-9 ms of CPU at start)
 */
#define CURL_DISABLE_TYPECHECK /* curl.h makes curl_easy_setopt a macro otherwise */
#include <curl/curl.h>
#include <dlfcn.h>
#include <git2.h>
#include <libpq-fe.h>
#include <microhttpd.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/err.h"

/* ---- 1. loading a library, resolving a symbol ---------------------------- */

struct lib {
    const char *soname;
    const char *package; /* Debian's */
    void *h;
    bool tried;
};

static struct lib L_curl = {"libcurl.so.4", "libcurl4", NULL, false};
static struct lib L_git2 = {"libgit2.so." LIBGIT2_SOVERSION, "libgit2-" LIBGIT2_SOVERSION, NULL, false};
static struct lib L_mhd = {"libmicrohttpd.so.12", "libmicrohttpd12", NULL, false};
static struct lib L_pq = {"libpq.so.5", "libpq5", NULL, false};
static struct lib L_crypto = {"libcrypto.so.3", "libssl3", NULL, false};
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void *lib_open(struct lib *l)
{
    pthread_mutex_lock(&mu);
    if (!l->tried) {
        l->tried = true;
        if (!(l->h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL))) {
            const char *e = dlerror();
            fprintf(stderr, "error[%s]: cannot load %s (%s); install it: apt-get install %s\n", MG_E_DEPENDENCY_MISSING,
                    l->soname, e ? e : "not found", l->package);
        }
    }
    void *h = l->h;
    pthread_mutex_unlock(&mu);
    return h;
}

static void *sym(struct lib *l, const char *name)
{
    void *h = lib_open(l);
    return h ? dlsym(h, name) : NULL;
}

/* The function pointer, resolved once (a data race on a pointer that only
 * ever goes from NULL to its one value is avoided with atomics). */
#define RESOLVE(L, name, type)                                                                                         \
    static type p_;                                                                                                    \
    type f_ = __atomic_load_n(&p_, __ATOMIC_ACQUIRE);                                                                  \
    if (!f_ && (f_ = (type)sym(&L, #name))) __atomic_store_n(&p_, f_, __ATOMIC_RELEASE)

/* ret name params: forward args, or return fail when the library is missing. */
#define FN(L, ret, name, params, args, fail)                                                                           \
    ret name params                                                                                                    \
    {                                                                                                                  \
        typedef ret(*fn_t) params;                                                                                     \
        RESOLVE(L, name, fn_t);                                                                                        \
        if (!f_) return fail;                                                                                          \
        return f_ args;                                                                                                \
    }
#define FNV(L, name, params, args)                                                                                     \
    void name params                                                                                                   \
    {                                                                                                                  \
        typedef void(*fn_t) params;                                                                                    \
        RESOLVE(L, name, fn_t);                                                                                        \
        if (f_) f_ args;                                                                                               \
    }

/* ---- 2. libcurl ---------------------------------------------------------- */

FN(L_curl, CURLcode, curl_global_init, (long flags), (flags), CURLE_FAILED_INIT)
FN(L_curl, CURL *, curl_easy_init, (void), (), NULL)
FNV(L_curl, curl_easy_cleanup, (CURL *curl), (curl))
FNV(L_curl, curl_easy_reset, (CURL *curl), (curl))
FN(L_curl, CURLcode, curl_easy_perform, (CURL *curl), (curl), CURLE_FAILED_INIT)
FN(L_curl, const char *, curl_easy_strerror, (CURLcode c), (c), "libcurl is not installed")
FN(L_curl, struct curl_slist *, curl_slist_append, (struct curl_slist *list, const char *data), (list, data), NULL)
FNV(L_curl, curl_slist_free_all, (struct curl_slist *list), (list))
FN(L_curl, curl_version_info_data *, curl_version_info, (CURLversion v), (v), NULL)

/* Variadic: the argument's type follows from the option's number
 * (CURLOPTTYPE_* in curl.h: long, object pointer, function pointer, curl_off_t, blob). */
CURLcode curl_easy_setopt(CURL *curl, CURLoption option, ...)
{
    typedef CURLcode (*fn_t)(CURL *, CURLoption, ...);
    RESOLVE(L_curl, curl_easy_setopt, fn_t);
    if (!f_) return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, option);
    CURLcode rc;
    if (option < CURLOPTTYPE_OBJECTPOINT) {
        long v = va_arg(ap, long);
        rc = f_(curl, option, v);
    } else if (option >= CURLOPTTYPE_OFF_T && option < CURLOPTTYPE_BLOB) {
        curl_off_t v = va_arg(ap, curl_off_t);
        rc = f_(curl, option, v);
    } else { /* object and function pointers, blobs: all pointers */
        void *v = va_arg(ap, void *);
        rc = f_(curl, option, v);
    }
    va_end(ap);
    return rc;
}

/* Variadic: every CURLINFO takes one pointer. */
CURLcode curl_easy_getinfo(CURL *curl, CURLINFO info, ...)
{
    typedef CURLcode (*fn_t)(CURL *, CURLINFO, ...);
    RESOLVE(L_curl, curl_easy_getinfo, fn_t);
    if (!f_) return CURLE_FAILED_INIT;
    va_list ap;
    va_start(ap, info);
    void *v = va_arg(ap, void *);
    va_end(ap);
    return f_(curl, info, v);
}

/* ---- 3. libpq ------------------------------------------------------------ */

FN(L_pq, PGconn *, PQconnectdbParams, (const char *const *keywords, const char *const *values, int expand_dbname),
   (keywords, values, expand_dbname), NULL)
FNV(L_pq, PQfinish, (PGconn *conn), (conn))
FN(L_pq, ConnStatusType, PQstatus, (const PGconn *conn), (conn), CONNECTION_BAD)
FN(L_pq, PGTransactionStatusType, PQtransactionStatus, (const PGconn *conn), (conn), PQTRANS_UNKNOWN)
FN(L_pq, char *, PQerrorMessage, (const PGconn *conn), (conn), "libpq is not installed")
FN(L_pq, int, PQsocket, (const PGconn *conn), (conn), -1)
FN(L_pq, PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *conn, PQnoticeProcessor proc, void *arg),
   (conn, proc, arg), NULL)
FN(L_pq, PGresult *, PQexec, (PGconn *conn, const char *query), (conn, query), NULL)
FN(L_pq, PGresult *, PQexecParams,
   (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues,
    const int *paramLengths, const int *paramFormats, int resultFormat),
   (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat), NULL)
FN(L_pq, ExecStatusType, PQresultStatus, (const PGresult *res), (res), PGRES_FATAL_ERROR)
FN(L_pq, char *, PQresultErrorMessage, (const PGresult *res), (res), "libpq is not installed")
FN(L_pq, char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode), NULL)
FNV(L_pq, PQclear, (PGresult *res), (res))
FN(L_pq, int, PQntuples, (const PGresult *res), (res), 0)
FN(L_pq, int, PQnfields, (const PGresult *res), (res), 0)
FN(L_pq, char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num), (char *)"")
FN(L_pq, int, PQgetisnull, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num), 1)
FN(L_pq, char *, PQcmdTuples, (PGresult *res), (res), (char *)"0")
FN(L_pq, unsigned char *, PQunescapeBytea, (const unsigned char *strtext, size_t *retbuflen), (strtext, retbuflen),
   NULL)
FNV(L_pq, PQfreemem, (void *ptr), (ptr))
FN(L_pq, int, PQconsumeInput, (PGconn *conn), (conn), 0)
FN(L_pq, PGnotify *, PQnotifies, (PGconn *conn), (conn), NULL)
FN(L_pq, int, PQlibVersion, (void), (), 0)

/* ---- 4. libmicrohttpd ---------------------------------------------------- */

FN(L_mhd, const char *, MHD_get_version, (void), (), NULL)
FNV(L_mhd, MHD_stop_daemon, (struct MHD_Daemon *d), (d))
FN(L_mhd, MHD_socket, MHD_quiesce_daemon, (struct MHD_Daemon *d), (d), MHD_INVALID_SOCKET)
FNV(L_mhd, MHD_destroy_response, (struct MHD_Response *r), (r))
FN(L_mhd, enum MHD_Result, MHD_add_response_header, (struct MHD_Response *r, const char *h, const char *v), (r, h, v),
   MHD_NO)
FN(L_mhd, struct MHD_Response *, MHD_create_response_from_buffer,
   (size_t size, void *buffer, enum MHD_ResponseMemoryMode mode), (size, buffer, mode), NULL)
FN(L_mhd, struct MHD_Response *, MHD_create_response_from_callback,
   (uint64_t size, size_t block_size, MHD_ContentReaderCallback crc, void *crc_cls, MHD_ContentReaderFreeCallback crfc),
   (size, block_size, crc, crc_cls, crfc), NULL)
FN(L_mhd, int, MHD_get_connection_values,
   (struct MHD_Connection *c, enum MHD_ValueKind kind, MHD_KeyValueIterator it, void *it_cls), (c, kind, it, it_cls), 0)
FN(L_mhd, int, MHD_get_connection_values_n,
   (struct MHD_Connection *c, enum MHD_ValueKind kind, MHD_KeyValueIteratorN it, void *it_cls), (c, kind, it, it_cls), 0)
FN(L_mhd, const char *, MHD_lookup_connection_value, (struct MHD_Connection *c, enum MHD_ValueKind kind, const char *key),
   (c, kind, key), NULL)
FN(L_mhd, enum MHD_Result, MHD_queue_response, (struct MHD_Connection *c, unsigned int status, struct MHD_Response *r),
   (c, status, r), MHD_NO)

/* Variadic: memgate asks only for info types that take no further argument. */
const union MHD_ConnectionInfo *MHD_get_connection_info(struct MHD_Connection *c, enum MHD_ConnectionInfoType type, ...)
{
    typedef const union MHD_ConnectionInfo *(*fn_t)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...);
    RESOLVE(L_mhd, MHD_get_connection_info, fn_t);
    return f_ ? f_(c, type) : NULL;
}

/* Variadic: memgate sets only MHD_CONNECTION_OPTION_TIMEOUT, whose one
 * argument is an unsigned int. */
enum MHD_Result MHD_set_connection_option(struct MHD_Connection *c, enum MHD_CONNECTION_OPTION option, ...)
{
    typedef enum MHD_Result (*fn_t)(struct MHD_Connection *, enum MHD_CONNECTION_OPTION, ...);
    RESOLVE(L_mhd, MHD_set_connection_option, fn_t);
    if (!f_) return MHD_NO;
    va_list ap;
    va_start(ap, option);
    unsigned int v = va_arg(ap, unsigned int);
    va_end(ap);
    return f_(c, option, v);
}

/* Variadic: the options go on as a va_list, which the library takes too. */
struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls,
                                    MHD_AccessHandlerCallback dh, void *dh_cls, ...)
{
    typedef struct MHD_Daemon *(*fn_t)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                       MHD_AccessHandlerCallback, void *, va_list);
    RESOLVE(L_mhd, MHD_start_daemon_va, fn_t);
    if (!f_) return NULL;
    va_list ap;
    va_start(ap, dh_cls);
    struct MHD_Daemon *d = f_(flags, port, apc, apc_cls, dh, dh_cls, ap);
    va_end(ap);
    return d;
}

/* ---- 5. libgit2 ---------------------------------------------------------- */

static const git_error no_git2 = {"libgit2 is not installed", 0};

FN(L_git2, int, git_libgit2_init, (void), (), -1)
FN(L_git2, int, git_libgit2_version, (int *major, int *minor, int *rev), (major, minor, rev), (*major = *minor = *rev = 0, -1))
FN(L_git2, const git_error *, git_error_last, (void), (), &no_git2)
FNV(L_git2, git_error_clear, (void), ())
FNV(L_git2, git_buf_dispose, (git_buf *b), (b))
FN(L_git2, char *, git_oid_tostr, (char *out, size_t n, const git_oid *id), (out, n, id), (n ? (*out = 0, out) : out))

FNV(L_git2, git_annotated_commit_free, (git_annotated_commit *c), (c))
FN(L_git2, int, git_annotated_commit_lookup, (git_annotated_commit **out, git_repository *repo, const git_oid *id),
   (out, repo, id), -1)
FN(L_git2, int, git_checkout_options_init, (git_checkout_options *o, unsigned int v), (o, v), -1)
FN(L_git2, int, git_checkout_tree, (git_repository *repo, const git_object *t, const git_checkout_options *o), (repo, t, o),
   -1)
FNV(L_git2, git_commit_free, (git_commit *c), (c))
FN(L_git2, int, git_commit_lookup, (git_commit **c, git_repository *repo, const git_oid *id), (c, repo, id), -1)
FN(L_git2, int, git_commit_tree, (git_tree **t, const git_commit *c), (t, c), -1)

FNV(L_git2, git_config_free, (git_config *c), (c))
FN(L_git2, int, git_config_get_multivar_foreach,
   (const git_config *c, const char *name, const char *rx, git_config_foreach_cb cb, void *payload),
   (c, name, rx, cb, payload), -1)
FN(L_git2, int, git_config_get_string_buf, (git_buf *out, const git_config *c, const char *name), (out, c, name), -1)
FNV(L_git2, git_config_iterator_free, (git_config_iterator *it), (it))
FN(L_git2, int, git_config_iterator_new, (git_config_iterator **out, const git_config *c), (out, c), -1)
FN(L_git2, int, git_config_next, (git_config_entry **e, git_config_iterator *it), (e, it), -1)
FN(L_git2, int, git_credential_ssh_key_from_agent, (git_credential **out, const char *user), (out, user), -1)

FN(L_git2, int, git_diff_find_similar, (git_diff *d, const git_diff_find_options *o), (d, o), -1)
FNV(L_git2, git_diff_free, (git_diff *d), (d))
FN(L_git2, int, git_diff_options_init, (git_diff_options *o, unsigned int v), (o, v), -1)
FN(L_git2, int, git_diff_to_buf, (git_buf *out, git_diff *d, git_diff_format_t f), (out, d, f), -1)
FN(L_git2, int, git_diff_tree_to_tree,
   (git_diff **d, git_repository *repo, git_tree *a, git_tree *b, const git_diff_options *o), (d, repo, a, b, o), -1)
FN(L_git2, int, git_diff_tree_to_workdir_with_index,
   (git_diff **d, git_repository *repo, git_tree *a, const git_diff_options *o), (d, repo, a, o), -1)
FN(L_git2, int, git_fetch_options_init, (git_fetch_options *o, unsigned int v), (o, v), -1)
FN(L_git2, int, git_ignore_path_is_ignored, (int *ignored, git_repository *repo, const char *path), (ignored, repo, path),
   -1)

FN(L_git2, int, git_index_entry_stage, (const git_index_entry *e), (e), 0)
FN(L_git2, size_t, git_index_entrycount, (const git_index *i), (i), 0)
FNV(L_git2, git_index_free, (git_index *i), (i))
FN(L_git2, const git_index_entry *, git_index_get_byindex, (git_index *i, size_t n), (i, n), NULL)
FN(L_git2, const git_index_entry *, git_index_get_bypath, (git_index *i, const char *path, int stage), (i, path, stage),
   NULL)
FN(L_git2, int, git_index_read, (git_index *i, int force), (i, force), -1)

FN(L_git2, int, git_merge_analysis_for_ref,
   (git_merge_analysis_t *a, git_merge_preference_t *p, git_repository *repo, git_reference *ours,
    const git_annotated_commit **theirs, size_t n),
   (a, p, repo, ours, theirs, n), -1)
FN(L_git2, int, git_merge_base, (git_oid *out, git_repository *repo, const git_oid *one, const git_oid *two),
   (out, repo, one, two), -1)
FNV(L_git2, git_object_free, (git_object *o), (o))
FN(L_git2, const git_oid *, git_object_id, (const git_object *o), (o), NULL)
FN(L_git2, int, git_object_peel, (git_object **out, const git_object *o, git_object_t t), (out, o, t), -1)

FNV(L_git2, git_reference_free, (git_reference *r), (r))
FN(L_git2, int, git_reference_name_to_id, (git_oid *out, git_repository *repo, const char *name), (out, repo, name), -1)
FN(L_git2, int, git_reference_set_target, (git_reference **out, git_reference *r, const git_oid *id, const char *msg),
   (out, r, id, msg), -1)
FN(L_git2, const char *, git_reference_shorthand, (const git_reference *r), (r), NULL)
FN(L_git2, const git_oid *, git_reference_target, (const git_reference *r), (r), NULL)
FN(L_git2, const char *, git_refspec_dst, (const git_refspec *r), (r), NULL)
FNV(L_git2, git_refspec_free, (git_refspec *r), (r))
FN(L_git2, int, git_refspec_parse, (git_refspec **r, const char *in, int is_fetch), (r, in, is_fetch), -1)
FN(L_git2, int, git_refspec_src_matches, (const git_refspec *r, const char *name), (r, name), 0)
FN(L_git2, int, git_refspec_transform, (git_buf *out, const git_refspec *r, const char *name), (out, r, name), -1)

FN(L_git2, int, git_remote_create_options_init, (git_remote_create_options *o, unsigned int v), (o, v), -1)
FN(L_git2, int, git_remote_create_with_opts, (git_remote **out, const char *url, const git_remote_create_options *o),
   (out, url, o), -1)
FN(L_git2, int, git_remote_fetch,
   (git_remote *r, const git_strarray *refspecs, const git_fetch_options *o, const char *msg), (r, refspecs, o, msg), -1)
FNV(L_git2, git_remote_free, (git_remote *r), (r))

FN(L_git2, const char *, git_repository_commondir, (const git_repository *repo), (repo), NULL)
FN(L_git2, int, git_repository_config_snapshot, (git_config **out, git_repository *repo), (out, repo), -1)
FNV(L_git2, git_repository_free, (git_repository *repo), (repo))
FN(L_git2, int, git_repository_head, (git_reference **out, git_repository *repo), (out, repo), -1)
FN(L_git2, int, git_repository_head_detached, (git_repository *repo), (repo), -1)
FN(L_git2, int, git_repository_head_unborn, (git_repository *repo), (repo), -1)
FN(L_git2, int, git_repository_index, (git_index **out, git_repository *repo), (out, repo), -1)
FN(L_git2, int, git_repository_is_bare, (const git_repository *repo), (repo), -1)
FN(L_git2, int, git_repository_open_ext, (git_repository **out, const char *path, unsigned int flags, const char *ceiling),
   (out, path, flags, ceiling), -1)
FN(L_git2, const char *, git_repository_path, (const git_repository *repo), (repo), NULL)
FN(L_git2, int, git_repository_state, (git_repository *repo), (repo), -1)
FN(L_git2, const char *, git_repository_workdir, (const git_repository *repo), (repo), NULL)
FN(L_git2, int, git_revparse, (git_revspec *rs, git_repository *repo, const char *spec), (rs, repo, spec), -1)

FN(L_git2, const git_status_entry *, git_status_byindex, (git_status_list *l, size_t i), (l, i), NULL)
FN(L_git2, size_t, git_status_list_entrycount, (git_status_list *l), (l), 0)
FNV(L_git2, git_status_list_free, (git_status_list *l), (l))
FN(L_git2, int, git_status_list_new, (git_status_list **out, git_repository *repo, const git_status_options *o),
   (out, repo, o), -1)
FN(L_git2, int, git_status_options_init, (git_status_options *o, unsigned int v), (o, v), -1)
FNV(L_git2, git_tree_free, (git_tree *t), (t))

/* ---- 6. libcrypto ------------------------------------------------------------------------------------------------ */

FN(L_crypto, BIGNUM *, BN_bin2bn, (const unsigned char *s, int len, BIGNUM *ret), (s, len, ret), NULL)
FNV(L_crypto, BN_free, (BIGNUM *a), (a))
FN(L_crypto, int, BN_num_bits, (const BIGNUM *a), (a), 0)
FNV(L_crypto, CRYPTO_free, (void *p, const char *file, int line), (p, file, line))
FN(L_crypto, ECDSA_SIG *, ECDSA_SIG_new, (void), (), NULL)
FNV(L_crypto, ECDSA_SIG_free, (ECDSA_SIG *sig), (sig))
FN(L_crypto, int, ECDSA_SIG_set0, (ECDSA_SIG *sig, BIGNUM *r, BIGNUM *s), (sig, r, s), 0)
FN(L_crypto, int, i2d_ECDSA_SIG, (const ECDSA_SIG *sig, unsigned char **pp), (sig, pp), -1)
FN(L_crypto, EVP_MD_CTX *, EVP_MD_CTX_new, (void), (), NULL)
FNV(L_crypto, EVP_MD_CTX_free, (EVP_MD_CTX *ctx), (ctx))
FN(L_crypto, int, EVP_DigestVerifyInit, (EVP_MD_CTX *ctx, EVP_PKEY_CTX **pctx, const EVP_MD *type, ENGINE *e, EVP_PKEY *pkey),
   (ctx, pctx, type, e, pkey), 0)
FN(L_crypto, int, EVP_DigestVerify,
   (EVP_MD_CTX *ctx, const unsigned char *sig, size_t siglen, const unsigned char *tbs, size_t tbslen),
   (ctx, sig, siglen, tbs, tbslen), 0)
FN(L_crypto, const EVP_MD *, EVP_sha256, (void), (), NULL)
FN(L_crypto, const EVP_MD *, EVP_sha384, (void), (), NULL)
FN(L_crypto, const EVP_MD *, EVP_sha512, (void), (), NULL)
FN(L_crypto, EVP_PKEY_CTX *, EVP_PKEY_CTX_new_from_name, (OSSL_LIB_CTX *libctx, const char *name, const char *propq),
   (libctx, name, propq), NULL)
FNV(L_crypto, EVP_PKEY_CTX_free, (EVP_PKEY_CTX *ctx), (ctx))
FN(L_crypto, int, EVP_PKEY_fromdata_init, (EVP_PKEY_CTX *ctx), (ctx), 0)
FN(L_crypto, int, EVP_PKEY_fromdata, (EVP_PKEY_CTX *ctx, EVP_PKEY **ppkey, int selection, OSSL_PARAM params[]),
   (ctx, ppkey, selection, params), 0)
FN(L_crypto, EVP_PKEY *, EVP_PKEY_new_raw_public_key, (int type, ENGINE *e, const unsigned char *pub, size_t len),
   (type, e, pub, len), NULL)
FNV(L_crypto, EVP_PKEY_free, (EVP_PKEY *pkey), (pkey))
FN(L_crypto, OSSL_PARAM_BLD *, OSSL_PARAM_BLD_new, (void), (), NULL)
FNV(L_crypto, OSSL_PARAM_BLD_free, (OSSL_PARAM_BLD *bld), (bld))
FN(L_crypto, int, OSSL_PARAM_BLD_push_BN, (OSSL_PARAM_BLD *bld, const char *key, const BIGNUM *bn), (bld, key, bn), 0)
FN(L_crypto, int, OSSL_PARAM_BLD_push_octet_string, (OSSL_PARAM_BLD *bld, const char *key, const void *buf, size_t n),
   (bld, key, buf, n), 0)
FN(L_crypto, int, OSSL_PARAM_BLD_push_utf8_string, (OSSL_PARAM_BLD *bld, const char *key, const char *buf, size_t n),
   (bld, key, buf, n), 0)
FN(L_crypto, OSSL_PARAM *, OSSL_PARAM_BLD_to_param, (OSSL_PARAM_BLD *bld), (bld), NULL)
FNV(L_crypto, OSSL_PARAM_free, (OSSL_PARAM *p), (p))
