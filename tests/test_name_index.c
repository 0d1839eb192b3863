/* test_name_index.c — the symbols' name index, made at the end of a first
 * index run (store/indexdb.h: mg_idx_bulk_indexes): SQLite sorts it in lists
 * of the page cache's size, one per helper thread; the build keeps them
 * small, so a run's peak memory does not grow by the cache times the
 * threads (issue 39: Linux's 4.3 M names took the run from 390 to 598 MB). */
#include "test.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/db.h"
#include "util/buf.h"
#include "store/indexdb.h"

#define NAMES 600000

/* A new index database in a temporary directory, its schema made. */
static struct mg_db *new_index(void)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/t.db", mg_t_tmpdir());
    struct mg_db *d;
    struct mg_err err = {0};
    if (mg_db_open(path, MG_DB_CREATE, &d, &err) != 0) FAIL("open: %s", err.msg);
    return d;
}

TEST(name_index_sort_memory_bounded)
{
    struct mg_db *d = new_index();
    struct mg_err err = {0};
    ASSERT_EQ_INT(mg_db_exec(d, "BEGIN", &err), 0);
    ASSERT_EQ_INT(mg_idx_bulk_indexes(d, false, &err), 0);
    sqlite3_stmt *st;
    ASSERT_EQ_INT(sqlite3_prepare_v2(d->db, "INSERT INTO symbols(id, file_id, name, kind, start_line, end_line) "
                                     "VALUES(?, 1, ?, 'function', 1, 2)", -1, &st, NULL), SQLITE_OK);
    char name[80];
    unsigned x = 7;
    for (int i = 1; i <= NAMES; i++) { /* names of 48 bytes in no order: ~45 MB to sort */
        x = x * 1103515245u + 12345u;
        snprintf(name, sizeof(name), "subsystem_%08x_handle_request_%08d_locked", x, i);
        sqlite3_bind_int64(st, 1, i);
        sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
        ASSERT_EQ_INT(sqlite3_step(st), SQLITE_DONE);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    mg_idx_sort_threads(d, 0); /* one list at a time: the bound is the list's size */
    sqlite3_int64 before, hw;
    sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &before, &hw, 1); /* the high-water mark starts here */
    ASSERT_EQ_INT(mg_idx_bulk_indexes(d, true, &err), 0);
    sqlite3_int64 after;
    sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &after, &hw, 0);
    /* a list of the page cache's 64 MiB would hold the whole sort at once
     * (+45 MB or more); the indexer's helper threads hold one list each */
    if (hw - before > (24 << 20))
        FAIL("making the name index took %lld MB over the %lld MB SQLite held before", (long long)(hw - before) >> 20,
             (long long)before >> 20);
    /* the cache is as it was, and the index is there and ordered */
    ASSERT_EQ_INT(sqlite3_prepare_v2(d->db, "PRAGMA cache_size", -1, &st, NULL), SQLITE_OK);
    ASSERT_EQ_INT(sqlite3_step(st), SQLITE_ROW);
    ASSERT_EQ_INT(sqlite3_column_int64(st, 0), -65536);
    sqlite3_finalize(st);
    ASSERT_EQ_INT(sqlite3_prepare_v2(d->db, "SELECT name FROM symbols INDEXED BY symbols_by_name "
                                     "WHERE name >= 'subsystem_' COLLATE NOCASE LIMIT 2000", -1, &st, NULL), SQLITE_OK);
    char prev[80] = "";
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *s = (const char *)sqlite3_column_text(st, 0);
        ASSERT(strcasecmp(prev, s) <= 0);
        snprintf(prev, sizeof(prev), "%s", s);
        n++;
    }
    sqlite3_finalize(st);
    ASSERT_EQ_INT(n, 2000);
    ASSERT_EQ_INT(mg_db_exec(d, "COMMIT", &err), 0);
    mg_db_close(&d);
}

/* The indexes of the tables a first run loads (mg_idx_bulk_indexes), as
 * "name sql" lines in name order. */
static char *bulk_index_sql(struct mg_db *d)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->db, "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN "
                           "('symbols', 'ptr_stores', 'ptr_calls') AND sql IS NOT NULL ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK)
        FAIL("prepare: %s", sqlite3_errmsg(d->db));
    struct mg_buf b;
    mg_buf_init(&b, 1 << 20);
    while (sqlite3_step(st) == SQLITE_ROW)
        mg_buf_addf(&b, "%s %s\n", sqlite3_column_text(st, 0), sqlite3_column_text(st, 1));
    sqlite3_finalize(st);
    mg_buf_addc(&b, 0);
    return mg_buf_detach(&b, NULL);
}

/* A first run drops them all and makes them again at its end: the same
 * indexes, defined as db.c's schema defines them. */
TEST(bulk_indexes_made_again_as_the_schema_made_them)
{
    struct mg_db *d = new_index();
    struct mg_err err = {0};
    char *schema = bulk_index_sql(d);
    ASSERT(strstr(schema, "symbols_by_name ") && strstr(schema, "ptr_stores_by_field ") &&
           strstr(schema, "ptr_stores_by_place ") && strstr(schema, "ptr_stores_by_fn ") &&
           strstr(schema, "ptr_calls_by_field "));
    ASSERT_EQ_INT(mg_idx_bulk_indexes(d, false, &err), 0);
    char *none = bulk_index_sql(d);
    ASSERT_EQ_STR(none, "");
    ASSERT_EQ_INT(mg_idx_bulk_indexes(d, true, &err), 0);
    char *again = bulk_index_sql(d);
    ASSERT_EQ_STR(again, schema);
    free(schema);
    free(none);
    free(again);
    mg_db_close(&d);
}
