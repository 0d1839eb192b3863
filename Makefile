# memgate — plain Makefile with pkg-config.
#
#   make                      build build/memgate
#   make test                 install what is missing, build, run every test
#   make check T=PATTERN      only the C tests and node test files whose name contains PATTERN
#   make run                  install, build, index this checkout, serve it (MCP + HTTP API)
#   make SANITIZE=address,undefined test   the same under sanitizers (build/san/)
#   make bench                index the Linux kernel and compare with rg (slow); secret scanner vs gitleaks;
#                             BENCH_BASELINE=REV also runs the MCP load on memgate built at REV
#   make soak                 100,000 random memory operations on SQLite, PostgreSQL, 3 daemons (~10 min)
#   make fuzz                 run every libFuzzer target for FUZZ_SECONDS each
#   make model                train the code model again (model/make.sh: python3-torch, the corpus's mirrors)
#   make injection-model      train the prompt-injection model again (model/injection/train.py: this machine's docs)
#   make deps                 only install dependencies (scripts/setup.sh)
#   make install PREFIX=/usr/local [DESTDIR=]   the binary, man pages, completions, systemd user unit
#   make uninstall PREFIX=...  remove what make install put there
#   make deb                  build/memgate_VERSION_ARCH.deb (Depends from dpkg-shlibdeps)
#   make man completions      only generate them (build/man, build/completions) from --help
#   make release              build/memgate-VERSION-linux-ARCH.tar.gz (+ .mcpb bundle, server.json; docs/install.md)

CC      ?= cc
PKGS    := sqlite3 jansson libpcre2-8 libgit2 libxxhash libzstd libsodium libmicrohttpd libcurl libhs libpq libcrypto
OPT     ?= -O2

ifdef SANITIZE
OUT     := build/san
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
else
OUT     := build
SANFLAGS :=
endif

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wformat=2 -Wno-format-truncation -Wno-unused-parameter -Wvla \
           $(if $(findstring clang,$(CC)),-Wno-unknown-warning-option)
CFLAGS  += -std=gnu11 $(OPT) -g -pthread -D_GNU_SOURCE -Isrc -I$(GOUT)/include $(WARN) $(SANFLAGS) \
           $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libcurl, libgit2, libmicrohttpd, libpq and libcrypto are not linked: src/util/dynlib.c
# loads them when first called (they bring ~35 libraries most commands never use)
DLPKGS  := libgit2 libmicrohttpd libcurl libpq libcrypto
LDLIBS  += $(shell pkg-config --libs $(filter-out $(DLPKGS),$(PKGS)) 2>/dev/null) -lm -pthread -ldl
# the test, bench and fuzz programs call more of them (loopback servers, HTTP clients): linked
DLLIBS  := $(shell pkg-config --libs $(DLPKGS) 2>/dev/null)
LDFLAGS += $(SANFLAGS)

LIB_SRC  := $(sort $(wildcard src/*/*.c))
# data/secrets.rules and the dashboard's files (data/dash/) are compiled in
# as byte arrays (generated C, below)
DASH_FILES := data/dash/index.html data/dash/dash.js data/dash/dash.css
LIB_OBJ  := $(LIB_SRC:%.c=$(OUT)/obj/%.o) $(OUT)/obj/gen/secrets_rules.o $(OUT)/obj/gen/dash_assets.o
# the MCP conformance suite's fixtures: a test program of their own
# (memgate-conformance = the command line + the fixtures), and the C tests
CONF_OBJ := $(OUT)/obj/tests/conformance/fixtures.o $(OUT)/obj/tests/conformance/tasks.o
TEST_SRC := $(sort $(wildcard tests/*.c))
TEST_OBJ := $(TEST_SRC:%.c=$(OUT)/obj/%.o) $(CONF_OBJ)
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))
FUZZ_OBJ := $(FUZZ_SRC:%.c=$(OUT)/obj/%.o) $(OUT)/obj/fuzz/registry.o
# (bench programs too: a stale object built against an older struct layout corrupts memory)
BENCH_OBJ := $(patsubst %.c,$(OUT)/obj/%.o,$(wildcard bench/*.c))
DEPS     := $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(FUZZ_OBJ:.o=.d) $(BENCH_OBJ:.o=.d) $(OUT)/obj/src/main.d $(OUT)/obj/src/rulesdb.d \
            $(OUT)/obj/tests/conformance/main.d

# tree-sitter runtime and grammars (sources from the npm registry, pinned in
# third_party/grammars/package-lock.json). Compiled without sanitizers, shared
# by every build (build/, build/san/, the fuzz build): they are third-party
# code. Each object goes through scripts/grammar-obj.sh, a cache outside the
# checkout keyed by the package's lockfile entry, the compiler and GFLAGS, so
# a grammar is compiled once per version whatever the clone or build. The
# runtime is 0.25 (grammars of ABI 13 to 15; README.md, "Dependencies").
G        := third_party/grammars/node_modules
TSRT     := $(G)/tree-sitter-runtime/vendor/tree-sitter/lib
GOUT     := build/grammars
GFLAGS   := -O2 -g0 -w -std=gnu11
# the compiler's identity, part of each grammar object's cache key (asked once)
export GRAMMAR_CCID := $(shell $(CC) --version 2>/dev/null | head -1)
# name  package  directory of parser.c  whether a scanner.c is beside it
# (written here, not looked up, so that the build needs no sources when every
# object is in the cache)
GRAMMAR_TABLE := \
  c          tree-sitter-c                            src                - \
  cpp        tree-sitter-cpp                          src                scanner \
  go         tree-sitter-go                           src                - \
  java       tree-sitter-java                         src                - \
  javascript tree-sitter-javascript                   src                scanner \
  python     tree-sitter-python                       src                scanner \
  rust       tree-sitter-rust                         src                scanner \
  typescript tree-sitter-typescript                   typescript/src     scanner \
  tsx        tree-sitter-typescript                   tsx/src            scanner \
  csharp     tree-sitter-c-sharp                      src                scanner \
  ruby       tree-sitter-ruby                         src                scanner \
  php        tree-sitter-php                          php/src            scanner \
  kotlin     @tree-sitter-grammars/tree-sitter-kotlin src                scanner \
  swift      tree-sitter-swift                        src                scanner \
  scala      tree-sitter-scala                        src                scanner \
  bash       tree-sitter-bash                         src                scanner \
  lua        @tree-sitter-grammars/tree-sitter-lua    src                scanner \
  haskell    tree-sitter-haskell                      src                scanner \
  ocaml      tree-sitter-ocaml                        grammars/ocaml/src scanner \
  elixir     tree-sitter-elixir                       src                scanner \
  dart       tree-sitter-dart                         src                scanner \
  zig        @tree-sitter-grammars/tree-sitter-zig    src                - \
  julia      tree-sitter-julia                        src                scanner \
  objc       tree-sitter-objc                         src                - \
  powershell tree-sitter-powershell                   src                scanner \
  perl       tree-sitter-perl                         src                scanner \
  r          @eagleoutice/tree-sitter-r               src                scanner \
  elisp      tree-sitter-elisp                        src                - \
  groovy     tree-sitter-groovy                       src                - \
  fsharp     tree-sitter-fsharp                       fsharp/src         scanner \
  solidity   tree-sitter-solidity                     src                - \
  hcl        @tree-sitter-grammars/tree-sitter-hcl    src                scanner \
  make       tree-sitter-make                         src                - \
  css        tree-sitter-css                          src                scanner
# one NAME|PACKAGE|DIR|SCANNER word per grammar (one shell, not one per field)
GTUPLES   := $(shell printf '%s|%s|%s|%s\n' $(GRAMMAR_TABLE))
gfield     = $(word $(2),$(subst |, ,$(1)))
GRAMMARS  := $(foreach t,$(GTUPLES),$(call gfield,$(t),1))
$(foreach t,$(GTUPLES),$(eval gpkg_$(call gfield,$(t),1) := $(call gfield,$(t),2)) \
  $(eval gdir_$(call gfield,$(t),1) := $(G)/$(call gfield,$(t),2)/$(call gfield,$(t),3)) \
  $(eval gscan_$(call gfield,$(t),1) := $(call gfield,$(t),4)))
# the grammars with an external scanner (scanner.c beside parser.c)
GSCANNERS := $(foreach g,$(GRAMMARS),$(if $(filter scanner,$(gscan_$(g))),$(g)))
GRAMMAR_OBJ := $(GOUT)/ts-runtime.o $(foreach g,$(GRAMMARS),$(GOUT)/$(g)-parser.o) \
               $(foreach g,$(GSCANNERS),$(GOUT)/$(g)-scanner.o)

.PHONY: check all deps test run bench soak fuzz model injection-model clean help install uninstall deb man completions grammars \
        grammar-sources release
all: $(OUT)/memgate

help:
	@sed -n '2,20p' Makefile | sed 's/^# \{0,1\}//'

deps:
	@scripts/setup.sh

# every grammar object (the first build after a lockfile change; make -j2 grammars)
grammars: $(GRAMMAR_OBJ)

# the grammar sources (npm ci): only on a miss of the grammar cache, which
# scripts/grammar-obj.sh handles itself; `make grammar-sources` asks for them
grammar-sources:
	@scripts/grammar-sources.sh
# the scanner column of GRAMMAR_TABLE against the sources, when they are there
GSCAN_SEEN := $(if $(wildcard $(G)/tree-sitter-c/src/parser.c),$(foreach g,$(GRAMMARS),$(if $(wildcard $(gdir_$(g))/scanner.c),$(g))))
ifneq ($(GSCAN_SEEN),)
ifneq ($(strip $(GSCAN_SEEN)),$(strip $(GSCANNERS)))
$(error GRAMMAR_TABLE's scanner column is wrong: the sources have a scanner.c for '$(strip $(GSCAN_SEEN))')
endif
endif
GDEPS := third_party/grammars/package-lock.json scripts/grammar-obj.sh

# the runtime's headers (tree_sitter/api.h), which src/index includes
$(GOUT)/include/tree_sitter/api.h: $(GDEPS)
	@scripts/grammar-obj.sh --include $(GOUT)/include

$(GOUT)/ts-runtime.o: $(GDEPS)
	@scripts/grammar-obj.sh $@ $(TSRT)/src/lib.c tree-sitter-runtime "$(CC)" $(GFLAGS) -I$(TSRT)/include -I$(TSRT)/src

define grammar_rules
$(GOUT)/$(1)-parser.o: $(GDEPS)
	@scripts/grammar-obj.sh $$@ $(gdir_$(1))/parser.c $(gpkg_$(1)) "$(CC)" $(GFLAGS)
$(GOUT)/$(1)-scanner.o: $(GDEPS)
	@scripts/grammar-obj.sh $$@ $(gdir_$(1))/scanner.c $(gpkg_$(1)) "$(CC)" $(GFLAGS)
endef
$(foreach g,$(GRAMMARS),$(eval $(call grammar_rules,$(g))))

$(OUT)/obj/%.o: %.c | $(GOUT)/include/tree_sitter/api.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# The built-in secret rules (src/security/scan_rules.c): data/secrets.rules as a
# NUL-terminated byte array, written with od so no extra tool is needed.
$(OUT)/gen/secrets_rules.c: data/secrets.rules
	@mkdir -p $(dir $@)
	@{ echo '/* generated from data/secrets.rules by the Makefile; do not edit */'; \
	  echo '#include <stddef.h>'; \
	  echo 'extern const char mg_secrets_rules_data[];'; \
	  echo 'extern const size_t mg_secrets_rules_len;'; \
	  echo 'const char mg_secrets_rules_data[] = {'; \
	  od -An -v -tx1 $< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '0};'; \
	  echo 'const size_t mg_secrets_rules_len = sizeof(mg_secrets_rules_data) - 1;'; } > $@.tmp && mv $@.tmp $@

$(OUT)/obj/gen/secrets_rules.o: $(OUT)/gen/secrets_rules.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# The dashboard at / (src/http/dash.c): each file of DASH_FILES as a byte
# array mg_dash_<name> (dots as underscores) with its length, the same way.
$(OUT)/gen/dash_assets.c: $(DASH_FILES) Makefile
	@mkdir -p $(dir $@)
	@{ echo '/* generated from data/dash/ by the Makefile; do not edit */'; \
	  echo '#include <stddef.h>'; \
	  for f in $(DASH_FILES); do \
	    n=mg_dash_$$(basename $$f | tr '.-' '__'); \
	    echo "extern const char $${n}[];"; echo "extern const size_t $${n}_len;"; \
	    echo "const char $${n}[] = {"; \
	    od -An -v -tx1 $$f | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	    echo '0};'; \
	    echo "const size_t $${n}_len = sizeof($${n}) - 1;"; \
	  done; } > $@.tmp && mv $@.tmp $@

$(OUT)/obj/gen/dash_assets.o: $(OUT)/gen/dash_assets.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# The git commit `memgate --version` and /metrics' memgate_build_info name: $(OUT)/gen/git_commit.h, rewritten
# (only when it changes) on every make, so a new commit rebuilds version.o and
# relinks; "unknown" outside a git checkout.
$(OUT)/gen/git_commit.h: FORCE
	@mkdir -p $(dir $@)
	@c=$$(git rev-parse --short HEAD 2>/dev/null || echo unknown); \
	echo "#define MG_GIT_COMMIT \"$$c\"" > $@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(OUT)/obj/src/cli/version.o: $(OUT)/gen/git_commit.h
$(OUT)/obj/src/cli/version.o: CFLAGS += -I$(OUT)/gen
$(OUT)/obj/src/util/metrics.o: $(OUT)/gen/git_commit.h
$(OUT)/obj/src/util/metrics.o: CFLAGS += -I$(OUT)/gen
.PHONY: FORCE
FORCE:

$(OUT)/libmemgate.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The built-in rule sets' Vectorscan databases, compiled here for any x86-64
# CPU and linked into the programs below (src/rulesdb.c; SHIPPED_OBJ), so a
# fresh data directory compiles nothing before its first scan. Made again
# when the rules or the code that builds their sets change; a stale one is
# harmless (a set is found by a hash of its patterns: a changed set is
# compiled at run time, as without them).
SHIPPED_OBJ := $(OUT)/obj/gen/rules_images.o
$(OUT)/memgate-rulesdb: $(OUT)/obj/src/rulesdb.o $(OUT)/libmemgate.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(OUT)/gen/rules_images.c: data/secrets.rules $(wildcard src/security/scan*.[ch] src/security/injection*.[ch]) | $(OUT)/memgate-rulesdb
	@mkdir -p $(dir $@)
	$(OUT)/memgate-rulesdb $(OUT)/gen/rules $@
$(SHIPPED_OBJ): $(OUT)/gen/rules_images.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(OUT)/memgate: $(OUT)/obj/src/main.o $(SHIPPED_OBJ) $(OUT)/libmemgate.a $(GRAMMAR_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(OUT)/memgate-conformance: $(OUT)/obj/tests/conformance/main.o $(CONF_OBJ) $(SHIPPED_OBJ) $(OUT)/libmemgate.a $(GRAMMAR_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(OUT)/memgate-test: $(TEST_OBJ) $(FUZZ_OBJ) $(SHIPPED_OBJ) $(OUT)/libmemgate.a $(GRAMMAR_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(DLLIBS)

# The whole suite: unit tests, CLI tests on fixture repos the tests build,
# and every fuzz target replayed over its kept corpus (memgate-test); then the
# real-client tests in tests/node (scripts/node-tests.sh: the official MCP SDK
# over stdio and HTTP, isolation under concurrent load, session expiry, the MCP
# conformance suite). Each part prints "N passed, N failed"; the last line is
# their sum, and the target fails if either part does. NODE_TESTS="stdio http"
# (names under tests/node) runs only those node test files.
# Under SANITIZE the node tests all run too, against the sanitized binary,
# with shorter storms (3,000 memory operations instead of 20,000, 200 calls per
# isolation client instead of 600: the same paths, the full counts ran in the
# plain pass); they check that every memgate process exits 0, so a leak or UB
# report in the servers fails the suite.
test: deps
	@$(MAKE) --no-print-directory $(OUT)/memgate $(OUT)/memgate-test $(OUT)/memgate-conformance
	@d=$$(mktemp -d); \
	export MEMGATE_TEST_PG_SH=$(abspath scripts/pg.sh) MEMGATE_TEST_PG_DIR=$$d/pg; \
	trap 'scripts/pg.sh rm $$d/pg >/dev/null 2>&1; rm -rf $$d' EXIT; \
	scripts/pg.sh start $$d/pg >/dev/null || { echo "make test: could not start PostgreSQL (scripts/pg.sh)"; echo "0 passed, 1 failed"; exit 1; }; \
	echo "MEMGATE_BIN=$(abspath $(OUT)/memgate) $(OUT)/memgate-test"; \
	{ MEMGATE_BIN=$(abspath $(OUT)/memgate) $(OUT)/memgate-test; echo $$? > $$d/c.rc; } 2>&1 | tee $$d/c.log; \
	echo "scripts/node-tests.sh $(OUT)/memgate $(NODE_TESTS)"; \
	$(if $(SANITIZE),export MEMGATE_MEMISO_OPS=$${MEMGATE_MEMISO_OPS:-3000} MEMGATE_ISOLATION_CALLS=$${MEMGATE_ISOLATION_CALLS:-200};) \
	{ scripts/node-tests.sh $(OUT)/memgate $(NODE_TESTS); echo $$? > $$d/n.rc; } 2>&1 | tee $$d/n.log; \
	p=0; f=0; \
	for part in c n; do \
	  line=$$(grep -E '^[0-9]+ passed, [0-9]+ failed$$' $$d/$$part.log | tail -1); \
	  if [ -n "$$line" ]; then \
	    p=$$((p + $$(echo "$$line" | cut -d' ' -f1))); f=$$((f + $$(echo "$$line" | cut -d' ' -f3))); \
	  elif [ "$$(cat $$d/$$part.rc)" != 0 ]; then f=$$((f + 1)); fi; \
	done; \
	rc=0; [ "$$(cat $$d/c.rc)" = 0 ] && [ "$$(cat $$d/n.rc)" = 0 ] && [ $$f = 0 ] || rc=1; \
	echo "$$p passed, $$f failed"; \
	exit $$rc

# One test, or a few: `make check T=PATTERN` runs the C tests whose name
# contains PATTERN (memgate-test PATTERN) and the node test files whose name
# does (tests/node/*PATTERN*.test.mjs). T= is required.
check: deps
	@[ -n "$(T)" ] || { echo "usage: make check T=PATTERN (a test name or part of one)" >&2; exit 2; }
	@$(MAKE) --no-print-directory $(OUT)/memgate $(OUT)/memgate-test $(OUT)/memgate-conformance
	@rc=0; \
	echo "MEMGATE_BIN=$(abspath $(OUT)/memgate) $(OUT)/memgate-test $(T)"; \
	MEMGATE_BIN=$(abspath $(OUT)/memgate) $(OUT)/memgate-test $(T) || rc=1; \
	names=$$(cd tests/node && ls *.test.mjs | sed 's/\.test\.mjs$$//' | grep -F -- "$(T)" | tr '\n' ' '); \
	if [ -n "$$names" ]; then echo "scripts/node-tests.sh $(OUT)/memgate $$names"; \
	  scripts/node-tests.sh $(OUT)/memgate $$names || rc=1; fi; \
	exit $$rc

# The long randomized isolation runs: 100,000 memory operations of 36
# sessions of 3 tenants on SQLite, on PostgreSQL, and across three daemons
# behind HAProxy (make test runs 20,000 of each). About 10 minutes here.
soak: deps
	@$(MAKE) --no-print-directory $(OUT)/memgate
	MEMGATE_MEMISO_OPS=$${MEMGATE_MEMISO_OPS:-100000} MEMGATE_TEST_TIMEOUT_MS=3600000 \
	  scripts/node-tests.sh $(OUT)/memgate memory_isolation memory_isolation_pg memory_isolation_multi

# make run installs only what building and running need (scripts/setup.sh
# --run; make test installs the rest) and builds on every core.
run:
	@scripts/setup.sh --run
	@$(MAKE) --no-print-directory -j$$(nproc) $(OUT)/memgate
	scripts/run.sh $(OUT)/memgate

bench: deps
	@scripts/setup.sh --bench
	@$(MAKE) --no-print-directory OPT=-O2 build/memgate build/memgate-bench build/memgate-mcpload build/memgate-scanbench build/memgate-injectionbench build/memgate-quality
	bench/run.sh

# the code model (model/, docs/semantic.md): compiled into the binary; `make
# model` trains it again from the corpus (model/corpus.tsv) with python3-torch
$(OUT)/obj/src/embed/model_data.o: model/memgate-code.mgm
build/model/tokens: build/obj/model/tokens.o build/obj/src/embed/model_tokens.o build/obj/src/store/tokenize.o \
                    build/obj/src/util/buf.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
model: build/model/tokens
	model/make.sh

# the prompt-injection model (src/security/injection_model.h): the corpora of tests/injection/ and this
# machine's documentation and code (tests/injection/benign.py; the kernel source of scripts/setup.sh --bench)
injection-model:
	@d=$$(mktemp -d) && python3 tests/injection/benign.py $$d $(HOME)/.cache/memgate-bench/linux-source-6.1 && \
	  python3 model/injection/train.py $$d; rc=$$?; rm -rf $$d; exit $$rc

build/memgate-bench: build/obj/bench/search_bench.o $(SHIPPED_OBJ) build/libmemgate.a $(GRAMMAR_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# prompt-injection flags on real comments and docs (bench/scan.sh)
build/memgate-injectionbench: build/obj/bench/injection_bench.o $(SHIPPED_OBJ) build/libmemgate.a $(GRAMMAR_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# secret-scanner throughput, one thread (bench/scan.sh; also run alone)
build/memgate-scanbench: build/obj/bench/scan_bench.o $(SHIPPED_OBJ) build/libmemgate.a $(GRAMMAR_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# retrieval quality on the kernel (bench/run.sh)
build/memgate-quality: build/obj/bench/quality.o $(SHIPPED_OBJ) build/libmemgate.a $(GRAMMAR_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# audit appends per second, files and PostgreSQL (docs/benchmarks.md; run alone)
build/memgate-auditbench: build/obj/bench/audit_bench.o $(SHIPPED_OBJ) build/libmemgate.a $(GRAMMAR_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/memgate-mcpload: build/obj/bench/mcp_load.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(DLLIBS)

# libFuzzer builds (clang). Each target runs FUZZ_SECONDS, growing a working
# corpus in build/fuzz/corpus/<target> seeded from fuzz/corpus/<target>;
# crashes land in build/fuzz/. Copy an input that found a bug into
# fuzz/corpus/<target>/ and `make test` replays it from then on.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(patsubst fuzz/fuzz_%.c,%,$(FUZZ_SRC))
fuzz: deps
	@$(MAKE) --no-print-directory $(GRAMMAR_OBJ)
	@$(MAKE) --no-print-directory CC=clang OUT=build/fuzz \
	    SANFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer" \
	    build/fuzz/libmemgate.a $(FUZZ_SRC:%.c=build/fuzz/obj/%.o) build/fuzz/obj/fuzz/registry.o
	@set -e; for t in $(FUZZ_TARGETS); do \
	  clang -g -fsanitize=fuzzer,address,undefined -DMG_FUZZ_MAIN=$$t -Isrc \
	    fuzz/libfuzzer_main.c build/fuzz/obj/fuzz/fuzz_$$t.o build/fuzz/obj/fuzz/registry.o build/fuzz/libmemgate.a \
	    $(GRAMMAR_OBJ) $(LDLIBS) -o build/fuzz/fuzz_$$t; \
	  mkdir -p build/fuzz/corpus/$$t; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS)s"; \
	  build/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -artifact_prefix=build/fuzz/ \
	    -print_final_stats=1 build/fuzz/corpus/$$t fuzz/corpus/$$t 2>&1 \
	    | grep -E 'Done|number_of_executed_units|ERROR|SUMMARY' || true; \
	  if ls build/fuzz/crash-* build/fuzz/leak-* build/fuzz/timeout-* >/dev/null 2>&1; then \
	    echo "fuzz: $$t found a failure; inputs in build/fuzz/" >&2; exit 1; fi; \
	done

# ---- packaging (docs/cli.md, "Installing") ----
# Man pages and shell completions are generated from the binary's own --help
# (scripts/helpdocs.py), so they say what --help says. BIN is the binary to
# document and install (default: the one this Makefile builds; the packaging
# test passes the one it tests, and nothing is rebuilt then).
BIN        ?= $(OUT)/memgate
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man/man1
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
HELPDOCS   := build/man/.stamp

man completions: $(HELPDOCS)
$(HELPDOCS): $(BIN) scripts/helpdocs.py
	@rm -rf build/man build/completions
	python3 scripts/helpdocs.py $(BIN) build
	@touch $@

install: $(HELPDOCS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
	    $(DESTDIR)$(FISHCOMPDIR) $(DESTDIR)$(USERUNITDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/memgate
	install -m 0644 build/man/*.1 $(DESTDIR)$(MANDIR)/
	install -m 0644 build/completions/memgate.bash $(DESTDIR)$(BASHCOMPDIR)/memgate
	install -m 0644 build/completions/_memgate $(DESTDIR)$(ZSHCOMPDIR)/_memgate
	install -m 0644 build/completions/memgate.fish $(DESTDIR)$(FISHCOMPDIR)/memgate.fish
	sed 's|@BINDIR@|$(BINDIR)|g' dist/memgate.service.in > $(DESTDIR)$(USERUNITDIR)/memgate.service
	chmod 0644 $(DESTDIR)$(USERUNITDIR)/memgate.service

# removes the files install writes (the man pages by the names in build/man,
# else every memgate*.1), not the directories
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/memgate $(DESTDIR)$(BASHCOMPDIR)/memgate $(DESTDIR)$(ZSHCOMPDIR)/_memgate \
	    $(DESTDIR)$(FISHCOMPDIR)/memgate.fish $(DESTDIR)$(USERUNITDIR)/memgate.service \
	    $(DESTDIR)$(MANDIR)/memgate.1 $(DESTDIR)$(MANDIR)/memgate-*.1

# A Debian package of BIN: staged with `make install PREFIX=/usr`, man pages
# gzipped, the binary stripped, Depends computed by dpkg-shlibdeps.
deb: $(HELPDOCS)
	scripts/mkdeb.sh $(BIN) build

# A release tarball, MCP bundle and MCP registry server.json (scripts/release.sh):
# the binary relinked to find its shared libraries in ../lib beside it. DT_RPATH
# (--disable-new-dtags), not DT_RUNPATH: RUNPATH only serves the binary's own
# DT_NEEDED, so the bundled libraries' dependencies and what src/util/dynlib.c
# dlopen()s with theirs would come from the host; the binary's RPATH serves them all.
$(OUT)/release/memgate: $(OUT)/obj/src/main.o $(SHIPPED_OBJ) $(OUT)/libmemgate.a $(GRAMMAR_OBJ)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -Wl,--disable-new-dtags -Wl,-rpath,'$$ORIGIN/../lib' -o $@ $^ $(LDLIBS)

release: $(OUT)/release/memgate $(HELPDOCS)
	scripts/release.sh $(OUT)/release/memgate build

clean:
	rm -rf build

-include $(DEPS)
