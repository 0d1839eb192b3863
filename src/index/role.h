/* role.h — what a file is for: source, test, doc, example, generated,
 * vendored or fixture, from its path and the start of its text.
 *
 * The indexer stores a file's role in files.flags (MG_FILE_ROLE_*, store/
 * db.h); search ranks tests, docs and the other non-source roles below
 * source unless the query asks for them (search/rank.c). The rules are the
 * languages' and tools' own conventions (Go's _test.go and testdata/, the
 * "Code generated ... DO NOT EDIT." header, pytest's test_*.py, Jest's
 * __tests__/, Maven's src/test/, vendor/ and third_party/), not anything
 * learnt from a benchmark.
 */
#ifndef MG_ROLE_H
#define MG_ROLE_H

#include <stddef.h>

enum mg_role {
    MG_ROLE_UNKNOWN = 0, /* indexed before roles were stored: read it from the path (mg_file_role) */
    MG_ROLE_SOURCE,
    MG_ROLE_TEST,
    MG_ROLE_DOC,
    MG_ROLE_EXAMPLE,
    MG_ROLE_GENERATED,
    MG_ROLE_VENDORED,
    MG_ROLE_FIXTURE,
    MG_ROLE_COUNT
};

/* How many bytes of a file's start mg_file_role reads for a generated-file header. */
#define MG_ROLE_HEAD_BYTES 2048

/* The role of the repo-relative path; text (may be NULL) is the file's
 * content, of which the first MG_ROLE_HEAD_BYTES are read. Never
 * MG_ROLE_UNKNOWN. */
enum mg_role mg_file_role(const char *path, const char *text, size_t len);

/* "source", "test", ... ("unknown" for MG_ROLE_UNKNOWN). */
const char *mg_role_name(enum mg_role r);

/* The role a query asks for by name: a word or identifier part of it is
 * the role's name or its plural ("test", "tests", "testing", "docs",
 * "examples", "fixture", ...). A bit per role (1u << role). */
unsigned mg_roles_asked(const char *query);

#endif
