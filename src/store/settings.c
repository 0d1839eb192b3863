/* settings.c — see settings.h. */
#include "store/settings.h"

#include <sqlite3.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INTERVAL (366LL * 86400) /* a year: anything longer is a typo */

void mg_settings_defaults(struct mg_repo_settings *s)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->watch, sizeof(s->watch), "default");
}

bool mg_settings_watch_on(const struct mg_repo_settings *s, const struct mg_config *cfg)
{
    if (strcmp(s->watch, "on") == 0) return true;
    if (strcmp(s->watch, "off") == 0) return false;
    return strcmp(cfg->watch, "off") != 0;
}

int64_t mg_settings_min_interval(void)
{
    const char *e = getenv("MEMGATE_TEST_MIN_REINDEX_INTERVAL");
    long long v = e && *e ? strtoll(e, NULL, 10) : 0;
    return v >= 1 && v < 60 ? v : 60;
}

/* "on" / "off" into *on; false for anything else. */
static bool on_off(const char *v, bool *on)
{
    if (strcmp(v, "on") == 0) return *on = true, true;
    if (strcmp(v, "off") == 0) return *on = false, true;
    return false;
}

/* Seconds: 0, or min .. MAX_INTERVAL; -1 when v is not such a number. */
static int64_t interval_of(const char *v)
{
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (!*v || *end || errno || v[0] == '-' || v[0] == '+' || v[0] == ' ') return -1;
    if (n != 0 && (n < mg_settings_min_interval() || n > MAX_INTERVAL)) return -1;
    return n;
}

int mg_setting_check(const struct mg_setting_change *c, char *out, size_t cap, struct mg_err *err)
{
    const char *v = c->value ? c->value : "";
    bool on;
    if (strcmp(v, "default") == 0 &&
        (!strcmp(c->name, "watch") || !strcmp(c->name, "reindex_interval") || !strcmp(c->name, "pull_on_push"))) {
        out[0] = 0;
        return 0;
    }
    if (strcmp(c->name, "watch") == 0) {
        if (!on_off(v, &on))
            return mg_err_set(err, MG_E_BAD_ARG, "watch = '%.64s' is not allowed; use on, off or default (default "
                              "follows the config key watch)", v);
    } else if (strcmp(c->name, "reindex_interval") == 0) {
        if (interval_of(v) < 0)
            return mg_err_set(err, MG_E_BAD_ARG, "reindex_interval = '%.64s' is not allowed; use a whole number of "
                              "seconds, 0 for none or %lld to %lld, or default (0)", v,
                              (long long)mg_settings_min_interval(), MAX_INTERVAL);
    } else if (strcmp(c->name, "pull_on_push") == 0) {
        if (!on_off(v, &on))
            return mg_err_set(err, MG_E_BAD_ARG, "pull_on_push = '%.64s' is not allowed; use on, off or default "
                              "(off)", v);
    } else {
        return mg_err_set(err, MG_E_BAD_ARG, "unknown setting '%.64s'; the settings are watch (on, off, default), "
                          "reindex_interval (seconds: 0 for none, or %lld or more) and pull_on_push (on, off)",
                          c->name, (long long)mg_settings_min_interval());
    }
    snprintf(out, cap, "%s", v);
    return 0;
}

void mg_settings_take(struct mg_repo_settings *s, const char *key, const char *value)
{
    size_t n = strlen(MG_SETTING_PREFIX);
    if (!value || strncmp(key, MG_SETTING_PREFIX, n) != 0) return;
    struct mg_setting_change c = {key + n, value};
    char v[32];
    if (mg_setting_check(&c, v, sizeof(v), NULL) != 0 || !v[0]) return; /* hand-edited nonsense: the default */
    bool on = false;
    if (strcmp(c.name, "watch") == 0) snprintf(s->watch, sizeof(s->watch), "%s", v);
    else if (strcmp(c.name, "reindex_interval") == 0) s->reindex_interval = interval_of(v);
    else if (on_off(v, &on)) s->pull_on_push = on;
}

int mg_settings_read(struct mg_db *d, struct mg_repo_settings *s, struct mg_err *err)
{
    mg_settings_defaults(s);
    sqlite3_stmt *st;
    if (mg_db_prepare(d, "SELECT key, value FROM meta WHERE key GLOB 'setting.*'", &st, err) != 0) return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        mg_settings_take(s, (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : mg_db_error(d, "read settings", err);
}

static int put(struct mg_db *d, const char *name, const char *value, struct mg_err *err)
{
    char key[64];
    snprintf(key, sizeof(key), MG_SETTING_PREFIX "%s", name);
    if (value[0]) return mg_db_meta_set(d, key, value, err);
    sqlite3_stmt *st;
    if (mg_db_prepare(d, "DELETE FROM meta WHERE key = ?", &st, err) != 0) return -1;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : mg_db_error(d, "write settings", err);
    sqlite3_finalize(st);
    return rc;
}

int mg_settings_write(struct mg_db *d, const struct mg_setting_change *v, size_t n, struct mg_err *err)
{
    char text[MG_SETTINGS_MAX][32];
    if (n > MG_SETTINGS_MAX) return mg_err_set(err, MG_E_BAD_ARG, "at most %d settings at once", MG_SETTINGS_MAX);
    for (size_t i = 0; i < n; i++)
        if (mg_setting_check(&v[i], text[i], sizeof(text[i]), err) != 0) return -1;
    if (mg_db_exec(d, "BEGIN IMMEDIATE", err) != 0) return -1;
    for (size_t i = 0; i < n; i++) {
        if (put(d, v[i].name, text[i], err) != 0) {
            sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
            return -1;
        }
    }
    if (mg_db_exec(d, "COMMIT", err) != 0) {
        sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    return 0;
}
