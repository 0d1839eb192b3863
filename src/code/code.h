/* code.h — the built-in code provider: the repos memgate indexed itself.
 *
 * search, symbols  search/search.h over each resolved repo's index database
 * read             a file of the index, read from disk (so it is current),
 *                  with the index's secret policy applied to the whole file
 *                  before its lines are cut (read.c)
 * outline          a file's definitions from the index (symbols rows), each
 *                  with a signature cut from the stored text (read.c)
 * list             the files table, filtered by the scope in SQL
 * repos            what each index holds (store/catalog.h)
 * index            index/indexer.h, with the request's progress and stop
 * remove           the repo's index database and its files
 * repomap          search/repomap.h over the repo's index (repomap.c)
 * (search with definition_lines: each hit's enclosing definition and its
 *  text, from the index's symbols and stored text; enclose.c)
 * stats, settings  the repo's meta rows: its runs, its watcher, its settings
 *                  (store/repostate.h, store/settings.h; stats.c)
 *
 * See provider/provider.h for the rules every provider keeps.
 */
#ifndef MG_CODE_H
#define MG_CODE_H

#include "index/watch.h"
#include "provider/provider.h"

/* The provider's state, shared by code.c and read.c. */
struct mg_code_self {
    const struct mg_config *cfg; /* borrowed */
    struct mg_db_pool *pool;     /* read handles on the repos' index databases (store/db.h) */
    struct mg_watcher *watcher;  /* the file watcher (index/watch.h), or NULL */
    bool serving;                /* a long-lived server (opened with watch): work may go on in the background
                                  * (vectors load, hybrid search does not wait for them) */
};

/* The built-in code provider for cfg (borrowed: it must outlive the
 * provider); with watch (a server), a file watcher keeps the indexes of the
 * data directory current while it is open and tells watch->ran of each run (a watcher that cannot start is a
 * warning on stderr), the repos' vectors start loading in the background at
 * once, and a hybrid search answers by words while a repo's vectors are
 * still loading (mg_items.semantic_loading). 0, or -1 with err set. */
int mg_code_builtin_open(const struct mg_config *cfg, const struct mg_watch_hook *watch, struct mg_code_provider *out,
                         struct mg_err *err);

/* The read operation (read.c). */
int mg_code_read(void *self, const struct mg_pcall *pc, const struct mg_read_query *q, struct mg_items *out,
                 struct mg_err *err);

/* The outline operation (read.c). */
int mg_code_outline(void *self, const struct mg_pcall *pc, const struct mg_outline_query *q, struct mg_items *out,
                    struct mg_err *err);

/* Fill the enclosing definition (def_*, body) of out's code hits from index
 * `from` on (enclose.c): max_lines is mg_code_query.definition_lines. 0, or
 * -1 with err set. */
int mg_code_enclose(struct mg_code_self *self, const struct mg_pcall *pc, struct mg_items *out, size_t from,
                    int max_lines, struct mg_err *err);

/* A definition's signature (enclose.c; the outline's too): its text from p (the start of its
 * first line; the text ends at e) up to the `{` that opens its body, or to
 * the end of the first line that closes its brackets (fn: a callable's,
 * once it has its parameters), over at most `lines` lines, whitespace
 * collapsed, into out (MG_CODE_SIG_MAX + 1 bytes; "..." ends one cut). */
#define MG_CODE_SIG_MAX 200
void mg_code_signature(const char *p, const char *e, int64_t lines, bool fn, char *out);
/* function, method, constructor */
bool mg_code_callable(const char *kind);

/* The stats and settings operations (stats.c). */
int mg_code_stats(void *self, const struct mg_pcall *pc, struct mg_items *out, struct mg_err *err);
int mg_code_nav(void *self, const struct mg_pcall *pc, const struct mg_nav_query *q, struct mg_items *out,
                struct mg_err *err);
/* The repo map operation (repomap.c). */
int mg_code_repomap(void *self, const struct mg_pcall *pc, const struct mg_repomap_query *q, struct mg_items *out,
                    struct mg_err *err);
int mg_code_settings(void *self, const struct mg_pcall *pc, const struct mg_settings_query *q, struct mg_items *out,
                     struct mg_err *err);

/* The filter of pc's scope (languages, globs); release with mg_globset_free(&f->globs). */
struct mg_filter;
int mg_code_filter(const struct mg_pcall *pc, struct mg_filter *f, struct mg_err *err);
/* Set a code item's owner from the repo it came from. */
void mg_code_owner(struct mg_item *it, const struct mg_repo *r);
/* Fill an item's repo fields (and owner) from the catalog's row (repos, stats). */
int mg_code_repo_info(struct mg_repo_info *it, const struct mg_repo *r, struct mg_err *err);

#endif
