/* version.c — `memgate --version` / `-V`: the memgate version, the git commit
 * the binary was built from (MG_GIT_COMMIT, from $(OUT)/gen/git_commit.h,
 * which the Makefile rewrites when HEAD moves) and the versions of the
 * libraries linked in, as they report themselves at run time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <curl/curl.h>
#include <git2.h>
#include <hs/hs.h>
#include <jansson.h>
#include <libpq-fe.h>
#include <microhttpd.h>
#include <pcre2.h>
#include <sodium.h>
#include <sqlite3.h>
#include <xxhash.h>
#include <zstd.h>

#include "cli/output.h"
#include "cli/version.h"
#include "git_commit.h"
#include "util/version.h"

#ifndef MG_GIT_COMMIT
#define MG_GIT_COMMIT "unknown"
#endif

/* The library versions, in a fixed order, as {name, version} pairs. */
static json_t *lib_versions(void)
{
    json_t *o = json_object();
    char buf[64];
    json_object_set_new(o, "sqlite", json_string(sqlite3_libversion()));
    json_object_set_new(o, "jansson", json_string(JANSSON_VERSION));
    int maj = 0, min = 0, rev = 0;
    git_libgit2_version(&maj, &min, &rev);
    snprintf(buf, sizeof(buf), "%d.%d.%d", maj, min, rev);
    json_object_set_new(o, "libgit2", json_string(buf));
    /* Vectorscan (or Hyperscan): "5.4.9 2023-01-01", the version then the build date */
    snprintf(buf, sizeof(buf), "%s", hs_version());
    buf[strcspn(buf, " ")] = '\0';
    json_object_set_new(o, "vectorscan", json_string(buf));
    json_object_set_new(o, "libsodium", json_string(sodium_version_string()));
    char pv[64] = "";
    if (pcre2_config(PCRE2_CONFIG_VERSION, pv) > 0) {
        pv[strcspn(pv, " ")] = '\0';
        json_object_set_new(o, "pcre2", json_string(pv));
    }
    json_object_set_new(o, "libmicrohttpd", json_string(MHD_get_version()));
    json_object_set_new(o, "zstd", json_string(ZSTD_versionString()));
    unsigned xv = XXH_versionNumber();
    snprintf(buf, sizeof(buf), "%u.%u.%u", xv / 10000, xv / 100 % 100, xv % 100);
    json_object_set_new(o, "xxhash", json_string(buf));
    const curl_version_info_data *cv = curl_version_info(CURLVERSION_NOW);
    if (cv && cv->version) json_object_set_new(o, "libcurl", json_string(cv->version));
    /* 150005: 15.5 (0 when libpq is not installed: util/dynlib.c) */
    int pq = PQlibVersion();
    if (pq > 0) {
        snprintf(buf, sizeof(buf), "%d.%d", pq / 10000, pq % 10000);
        json_object_set_new(o, "libpq", json_string(buf));
    }
    return o;
}

int mg_cmd_version(int argc, char **argv)
{
    bool as_json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) as_json = true;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: memgate --version [--json]   (also -V)\n\n"
                   "The memgate version, the git commit it was built from, and the versions\n"
                   "of the libraries it links. --json prints them as one JSON object.\n");
            return 0;
        } else {
            return mg_cli_usage("--version", "unknown argument '%s'", argv[i]);
        }
    }
    json_t *libs = lib_versions();
    if (as_json) {
        json_t *o = json_pack("{s:s, s:s, s:o}", "version", MG_VERSION, "commit", MG_GIT_COMMIT,
                              "libraries", libs);
        char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (s) puts(s);
        free(s);
        json_decref(o);
        return 0;
    }
    printf("memgate %s (commit %s)\n", MG_VERSION, MG_GIT_COMMIT);
    const char *k;
    json_t *v;
    json_object_foreach(libs, k, v) printf("  %-14s %s\n", k, json_string_value(v));
    json_decref(libs);
    return 0;
}
