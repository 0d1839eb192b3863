/* fuzz_chunk.c — parse and chunk hostile text in every grammar and every
 * line-rule language (defs_lines.c, Vue/Svelte); the first byte picks the
 * language. Checks the chunk and definition invariants. */
#include <stdlib.h>

#include "fuzz.h"
#include "index/chunk.h"
#include "util/utf8.h"

MG_FUZZ_TARGET(chunk)
{
    static const char *paths[] = {
        "a.c",   "a.cc",  "a.go",     "a.java",  "a.js",    "a.py",     "a.rs",  "a.ts",   "a.tsx",  "a.md",
        "a.cs",  "a.rb",  "a.php",    "a.kt",    "a.swift", "a.scala",  "a.sh",  "a.lua",  "a.hs",   "a.ml",
        "a.ex",  "a.dart", "a.zig",   "a.jl",    "a.m",     "a.ps1",    "a.pl",  "a.r",    "a.sql",  "a.el",
        "a.groovy", "a.fs", "a.sol",  "a.tf",    "Makefile", "a.css",   "a.erl", "a.nim",  "a.proto", "a.vue",
        "a.svelte",
    };
    if (size < 1) return 0;
    const struct mg_lang *lang = mg_lang_for_path(paths[data[0] % (sizeof(paths) / sizeof(paths[0]))]);
    char *text;
    size_t len;
    if (mg_utf8_repair((const char *)data + 1, size - 1, &text, &len) == (size_t)-1) return 0;
    static TSParser *parser;
    if (!parser) parser = ts_parser_new();
    struct mg_chunk_opts o = {150, 12 * 1024, 2000000};
    struct mg_parsed p;
    if (mg_chunk_file(lang, text, len, &o, parser, &p) == 0) {
        /* the definitions: in order, each inside its parent */
        for (size_t i = 0; i < p.defs.n; i++) {
            const struct mg_def *d = &p.defs.v[i];
            if (d->start > d->end || d->end > len || (i > 0 && d->start < p.defs.v[i - 1].start) ||
                d->parent >= (int)i || d->parent < -1)
                abort();
            if (d->parent >= 0 && (d->start < p.defs.v[d->parent].start || d->end > p.defs.v[d->parent].end))
                abort();
        }
        uint32_t pos = 0;
        for (size_t i = 0; i < p.nchunks; i++) {
            if (p.chunks[i].start_byte < pos || p.chunks[i].end_byte > len ||
                p.chunks[i].end_byte <= p.chunks[i].start_byte)
                abort();
            pos = p.chunks[i].end_byte;
        }
        mg_parsed_release(&p);
    }
    free(text);
    return 0;
}
