/* settings.h — a repo's own settings, kept in its database's meta table.
 *
 * Each setting is the meta row `setting.<name>`, so it lives and dies with
 * the repo's index (`repos rm` drops it). A missing row is the default:
 *
 *   watch             on | off | default   (default: follow the config key
 *                                           `watch`, itself on by default)
 *   reindex_interval  seconds between scheduled re-indexes in `memgate
 *                     serve`; 0 = none (default); at least
 *                     mg_settings_min_interval() when not 0
 *   pull_on_push      on | off (default off): the push webhook may pull the
 *                     repo before re-indexing it
 *
 * The file watcher (setting.watch), the scheduler and the webhook
 * (setting.pull_on_push) read them with mg_settings_read; this file is the
 * one place that reads and validates what is written there.
 */
#ifndef MG_SETTINGS_H
#define MG_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "store/db.h"
#include "util/config.h"
#include "util/err.h"

#define MG_SETTING_PREFIX "setting."
/* The names, for sentences that list what is allowed. */
#define MG_SETTING_NAMES "watch, reindex_interval, pull_on_push"
#define MG_SETTINGS_MAX 3

struct mg_repo_settings {
    char watch[8];            /* "on", "off" or "default" (no row) */
    int64_t reindex_interval; /* seconds; 0: none */
    bool pull_on_push;
};

/* The defaults (every row absent). */
void mg_settings_defaults(struct mg_repo_settings *s);
/* Take one meta row into s when it is a setting (key with its prefix);
 * a value that does not validate (written by hand) reads as the default. */
void mg_settings_take(struct mg_repo_settings *s, const char *key, const char *value);
/* Read every setting of a repo's database. 0, or -1 with err. */
int mg_settings_read(struct mg_db *d, struct mg_repo_settings *s, struct mg_err *err);
/* The watch setting in effect: the repo's own, else the config's. */
bool mg_settings_watch_on(const struct mg_repo_settings *s, const struct mg_config *cfg);

/* The shortest reindex_interval other than 0: 60 s, or
 * MEMGATE_TEST_MIN_REINDEX_INTERVAL (a test seam, docs/config.md). */
int64_t mg_settings_min_interval(void);

/* One change: a name and its value as text ("default" removes the row). */
struct mg_setting_change {
    const char *name;
    const char *value;
};
/* Check a change: 0 and the text to store in out ("" when the row is to go),
 * or -1 with invalid_argument and a sentence saying what is allowed. */
int mg_setting_check(const struct mg_setting_change *c, char *out, size_t cap, struct mg_err *err);
/* Check and apply n changes in one transaction on a writable handle: all or
 * none. */
int mg_settings_write(struct mg_db *d, const struct mg_setting_change *v, size_t n, struct mg_err *err);

#endif
