/* navimport.h — the repo files a source file's imports may name, read from
 * its text at query time (nothing is stored for it), for navigation's
 * resolution of a called name (search/nav.h): among several definitions of a
 * name, those in files the calling file includes or imports come first.
 *
 * What is read, per language (a files.lang name):
 *   c, cpp, objc   #include "x.h" and <x.h>: a path ending in x.h ("./" and
 *                  "../" ones relative to the file); the file's own stem in
 *                  its directory (a.c and a.h go together).
 *   python         import a.b, from a.b import c: a/b.py, a/b/__init__.py (and
 *                  a/b/c.py); leading dots are relative to the file.
 *   javascript,    import ... from './x', import './x', require('./x'),
 *   typescript     import('./x'): x.ts, x.tsx, x.js, x.jsx, x.mjs, x.cjs,
 *                  x/index.*, relative to the file; bare module names are
 *                  packages, not repo files, and are left out.
 *   go             the file's own directory (its package); import "m/a/b": a
 *                  directory the import path ends with.
 *   java           the file's own directory (its package); import a.b.C:
 *                  a/b/C.java; import a.b.*: a directory ending in a/b.
 *   rust           mod x: x.rs, x/mod.rs beside the file (or in its own
 *                  directory for a file that is not mod.rs, lib.rs or
 *                  main.rs); use crate::a::b: a.rs, a/b.rs, a/mod.rs,
 *                  a/b/mod.rs at any depth.
 * At most MG_NAV_IMPORT_SCAN bytes of a file are read and at most
 * MG_NAV_IMPORTS_MAX patterns reported; longer lines, names and paths are
 * skipped. Other languages have no imports here.
 */
#ifndef MG_NAVIMPORT_H
#define MG_NAVIMPORT_H

#include <stdbool.h>
#include <stddef.h>

#define MG_NAV_IMPORT_SCAN (64u << 10) /* bytes of a file read for its imports */
#define MG_NAV_IMPORTS_MAX 256         /* patterns per file */
#define MG_NAV_IMPORT_PATH_MAX 512     /* bytes of a pattern */

/* How a pattern p matches a repo path (relative, '/'-separated). */
enum mg_nav_imp {
    MG_NAV_IMP_PATH,    /* the path is p, or ends in "/" p */
    MG_NAV_IMP_EXACT,   /* the path is p */
    MG_NAV_IMP_STEM,    /* the path without its extension is p (another extension of one file) */
    MG_NAV_IMP_DIR,     /* the path's directory is p */
    MG_NAV_IMP_DIR_END, /* the path's directory is p, or ends in "/" p */
    MG_NAV_IMP_DIR_IN,  /* p is the path's (non-empty) directory, or ends in "/" and it */
};

/* Calls cb with each pattern of a file's imports (NUL-terminated, at most
 * MG_NAV_IMPORT_PATH_MAX - 1 bytes, no "." or ".." part); cb returns
 * non-zero to stop. path is the file's repo path. false when the language
 * has no imports here. */
typedef int (*mg_nav_import_cb)(void *ud, enum mg_nav_imp how, const char *pattern);
bool mg_nav_imports(const char *lang, const char *path, const char *text, size_t len, mg_nav_import_cb cb, void *ud);

/* Whether repo path matches pattern p as how says. */
bool mg_nav_import_matches(enum mg_nav_imp how, const char *p, const char *path);

#endif
