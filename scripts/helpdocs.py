#!/usr/bin/env python3
"""helpdocs.py — man pages and shell completions from memgate's own --help.

The text of every command's --help is a static string in src/cli/cmd_*.c; this
script runs the built binary (`memgate --help`, then `memgate CMD --help` for
each command that lists) and turns what it prints into roff and into bash,
zsh and fish completions, so none of them can drift from --help.

usage: scripts/helpdocs.py MEMGATE_BIN OUTDIR
  writes OUTDIR/man/memgate.1, OUTDIR/man/memgate-CMD.1 (one per command),
  OUTDIR/completions/memgate.bash, OUTDIR/completions/_memgate (zsh) and
  OUTDIR/completions/memgate.fish

The --help layout it reads (src/cli/cli.c, src/cli/cmd_*.c): a "usage:" line
and its continuations ("       memgate ..." starts an alternative form);
paragraphs; section headers "name:" alone on a line ("options:",
"options (create):", "modes:", "environment:"); indented items "TERM  text"
whose text continues on deeper-indented lines. An option item's term is its
flags and their value names (--listen ADDR, -F, --fixed-strings).
"""
import os
import re
import subprocess
import sys

MAX_HELP = 1 << 20  # a --help longer than this is not ours

FLAG_RE = re.compile(r'(?<![\w-])(--[a-z][a-z0-9-]*|-[A-Za-z])(?![\w-])')
LONG_RE = re.compile(r'(?<![\w-])--[a-z][a-z0-9-]*(?![\w-])')
HEADER_RE = re.compile(r'^([a-z][a-z ()-]*):\s*$')
METAVAR_RE = re.compile(r'^[A-Z][A-Z0-9_,.|]*$')


def die(msg):
    sys.stderr.write('helpdocs: error[%s\n' % msg)
    sys.exit(1)


def run_help(binary, args):
    env = {k: v for k, v in os.environ.items() if not k.startswith('MEMGATE_')}
    try:
        p = subprocess.run([binary] + args, capture_output=True, env=env, timeout=30)
    except OSError as e:
        die("path_not_found]: cannot run '%s': %s; build it first (make)" % (binary, e))
    if p.returncode != 0 or not p.stdout or len(p.stdout) > MAX_HELP:
        die("internal]: '%s %s' exited %d with %d bytes; its --help must print to stdout and exit 0"
            % (binary, ' '.join(args), p.returncode, len(p.stdout)))
    return p.stdout.decode('utf-8')


# ---- parsing ----

def split_term(body):
    """An option item's term (flags and value names) and its text."""
    if body.startswith('-'):
        toks = body.split(' ')
        i = 0
        term = []
        while i < len(toks):
            t = toks[i]
            if t == '':
                break  # two spaces: the text starts
            bare = t.rstrip(',')
            if FLAG_RE.fullmatch(bare) or re.fullmatch(r'--[a-z][a-z0-9-]*=\S+', bare) or \
                    (term and METAVAR_RE.match(bare)) or (term and re.fullmatch(r'[a-z_]+(\|[a-z_]+)+', bare)):
                term.append(t)
                i += 1
                continue
            break
        if term:
            return ' '.join(term), ' '.join(toks[i:]).strip()
    m = re.match(r'^(\S(?:.*?\S)?)\s{2,}(\S.*)$', body)
    if m:
        return m.group(1), m.group(2)
    return None, body


def parse(text):
    """-> {'usage': [lines], 'sections': [(name, [blocks])]}; a block is
    ('para', [lines]), ('items', [(term, [text lines])]) or ('literal', [lines])."""
    lines = text.rstrip('\n').split('\n')
    usage = []
    i = 0
    if lines and lines[0].startswith('usage: '):
        usage.append(lines[0][len('usage: '):])
        i = 1
        while i < len(lines) and lines[i].startswith(' ') and lines[i].strip():
            if lines[i].lstrip().startswith('memgate '):
                usage.append(lines[i].strip())
            else:
                usage[-1] += '\n' + (lines[i][7:] if lines[i].startswith(' ' * 7) else lines[i].lstrip())
            i += 1
    sections = [['DESCRIPTION', []]]
    in_header = False
    blank = False
    cur = None  # the block being filled
    for line in lines[i:]:
        if not line.strip():
            blank = True
            cur = None
            continue
        h = HEADER_RE.match(line)
        if h:
            sections.append([h.group(1), []])
            in_header = True
            blank = False
            cur = None
            continue
        if blank and in_header and not line.startswith(' '):
            # text after a header's items: its own section
            sections.append(['NOTES', []])
            in_header = False
        blank = False
        blocks = sections[-1][1]
        if not line.startswith(' '):
            if cur is None or cur[0] != 'para':
                cur = ('para', [])
                blocks.append(cur)
            cur[1].append(line)
            continue
        indent = len(line) - len(line.lstrip(' '))
        body = line.strip()
        if cur is not None and cur[0] == 'items' and indent > cur[2]:
            # a continuation of the item above, or its text when its term filled the line
            cur[1][-1][1].append(body)
            continue
        if sections[-1][0] == 'commands':  # "  repo-map the repo's ...": the name, then its summary
            term, _, rest = body.partition(' ')
            rest = rest.strip()
        else:
            term, rest = split_term(body)
        if term is None:
            if cur is None or cur[0] != 'literal':
                cur = ('literal', [])
                blocks.append(cur)
            cur[1].append(line[2:] if line.startswith('  ') else line)
            continue
        if cur is None or cur[0] != 'items' or indent != cur[2]:
            cur = ('items', [], indent)
            blocks.append(cur)
        cur[1].append((term, [rest] if rest else []))
    return {'usage': usage, 'sections': [(n, b) for n, b in sections if b]}


def help_flags(text):
    """Every flag the --help shows: each --long anywhere, each -x that starts an option term."""
    flags = set(LONG_RE.findall(text))
    for m in re.finditer(r'^\s+(-[A-Za-z])[, ]', text, re.M):
        flags.add(m.group(1))
    return flags


# ---- roff ----

def esc(s):
    s = s.replace('\\', '\\e').replace('-', '\\-')
    return s


def line_out(s):
    # a break point (\:, invisible) after each comma inside a word: JSON
    # shapes such as {"ok","events",...} are longer than a man page's line
    s = re.sub(r',(?=\S)', ',\\:', esc(s))
    if s.startswith('.') or s.startswith("'"):
        s = '\\&' + s
    return s


def term_roff(term):
    out = []
    for t in term.split(' '):
        bare = t.rstrip(',')
        tail = t[len(bare):]
        if FLAG_RE.fullmatch(bare) or bare.startswith('--'):
            out.append('\\fB%s\\fR%s' % (esc(bare), tail))
        elif METAVAR_RE.match(bare):
            out.append('\\fI%s\\fR%s' % (esc(bare), tail))
        elif bare:
            out.append('\\fB%s\\fR%s' % (esc(bare), tail))
    return ' '.join(out)


def blocks_roff(blocks, cmd_links=False):
    out = []
    for b in blocks:
        kind = b[0]
        if kind == 'para':
            out.append('.PP')
            out.extend(line_out(l) for l in b[1])
        elif kind == 'literal':
            out.append('.PP')
            out.append('.RS 4')
            out.append('.nf')
            out.extend(line_out(l) for l in b[1])
            out.append('.fi')
            out.append('.RE')
        else:
            for term, text in b[1]:
                out.append('.TP')
                if cmd_links:
                    out.append('\\fB%s\\fR' % esc(term))
                else:
                    out.append(term_roff(term))
                out.extend(line_out(l) for l in text)
                if cmd_links:
                    out.append('(\\fBmemgate\\-%s\\fR(1))' % esc(term))
    return out


def manpage(name, summary, version, doc, raw, see_also):
    title = name.upper()
    out = ['.\\" generated by scripts/helpdocs.py from `%s --help`; do not edit' % name.replace('-', ' ', 1),
           '.TH %s 1 "" "memgate %s" "memgate manual"' % (esc(title), esc(version)),
           '.\\" left-aligned, unhyphenated: flags and JSON must read as --help prints them',
           '.ad l', '.nh',
           '.SH NAME', '%s \\- %s' % (esc(name), esc(summary)),
           '.SH SYNOPSIS', '.nf']
    for u in doc['usage']:
        first, _, rest = u.partition('\n')
        w = first.split(' ')
        head = 2 if name != 'memgate' else 1
        out.append('\\fB%s\\fR %s' % (esc(' '.join(w[:head])), esc(' '.join(w[head:]))))
        out.extend(line_out(l) for l in rest.split('\n') if rest)
    out.append('.fi')
    sections = list(doc['sections'])
    have_opts = any(n.startswith('options') for n, _ in sections)
    # flags the text shows outside any options section (impact's --diff and
    # --path): copy their items into OPTIONS so it lists every flag
    opt_text = '\n'.join('\n'.join(t + ' ' + ' '.join(x) for t, x in b[1])
                         for n, bl in sections if n.startswith('options') for b in bl if b[0] == 'items')
    missing = help_flags(raw) - set(FLAG_RE.findall(opt_text))
    extra = []
    for n, bl in sections:
        if n.startswith('options'):
            continue
        for b in bl:
            if b[0] != 'items':
                continue
            for term, text in b[1]:
                tf = set(FLAG_RE.findall(term))
                if tf & missing:
                    extra.append((term, text))
                    missing -= tf
    first_opt = True
    for n, bl in sections:
        if n == 'DESCRIPTION' or n == 'NOTES':
            out.append('.SH ' + n)
        elif n.startswith('options'):
            if first_opt:
                out.append('.SH OPTIONS')
                if extra:
                    out.extend(blocks_roff([('items', extra)]))
                first_opt = False
            if n != 'options' or len([x for x, _ in sections if x.startswith('options')]) > 1:
                out.append('.SS "%s"' % esc(n[0].upper() + n[1:]))
        else:
            out.append('.SH ' + esc(n.upper()))
        out.extend(blocks_roff(bl, cmd_links=(name == 'memgate' and n == 'commands')))
    if missing:
        die("internal]: %s --help shows %s outside any option item; give them an item in its options"
            % (name, ', '.join(sorted(missing))))
    out.append('.SH SEE ALSO')
    out.append(',\n'.join('.BR %s (1)' % esc(s) for s in see_also))
    return '\n'.join(out) + '\n'


# ---- completions ----

def short_desc(line):
    """an item's first line, cut at '; ' or '. ' where no parenthesis is left open"""
    for sep in ('; ', '. '):
        head = line.split(sep)[0]
        if head != line and head.count('(') == head.count(')'):
            line = head
    return line.rstrip(':,;')


def cmd_info(cmd, text, doc):
    """flags, which take a value, value choices, subcommands, whether ids follow a subcommand"""
    flags = sorted(help_flags(text))
    takes = {}
    choices = {}
    descs = {}
    for n, bl in doc['sections']:
        for b in bl:
            if b[0] != 'items':
                continue
            for term, tl in b[1]:
                toks = [t.rstrip(',') for t in term.split(' ')]
                fl = [t for t in toks if FLAG_RE.fullmatch(t)]
                vals = [t for t in toks if t and not FLAG_RE.fullmatch(t)]
                for f in fl:
                    descs.setdefault(f, short_desc(tl[0] if tl else ''))
                    if vals:
                        takes[f] = vals[0]
    subs = []
    ids_after_sub = False
    for u in doc['usage']:
        w = u.split()
        if len(w) >= 3 and w[0] == 'memgate' and w[1] == cmd and re.fullmatch(r'[a-z][a-z-]*', w[2]):
            if w[2] not in subs:
                subs.append(w[2])
            if len(w) >= 4 and w[3] == 'ID':
                ids_after_sub = True
        for m in re.finditer(r'\[?(--[a-z][a-z0-9-]*) ([a-z_]+(?:\|[a-z_]+)+)\]?', u):
            choices[m.group(1)] = m.group(2).split('|')
            takes[m.group(1)] = m.group(2)
    for f in flags:
        descs.setdefault(f, '')
    return {'flags': flags, 'takes': takes, 'choices': choices, 'subs': subs,
            'ids_after_sub': ids_after_sub, 'descs': descs}


IDS_SED = "sed -n 's/.*\"id\": *\"\\([^\"]*\\)\".*/\\1/p'"


def bash_completion(cmds, infos, top):
    o = ['# bash completion for memgate; generated by scripts/helpdocs.py from memgate --help',
         '_memgate_repo_ids()', '{',
         '    # the repos memgate repos --json lists: [{"id":"...","root":...},...]',
         "    memgate repos --json 2>/dev/null | tr '{' '\\n' | %s" % IDS_SED, '}',
         '_memgate()', '{',
         '    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd="" i ci=0',
         '    for ((i = 1; i < COMP_CWORD; i++)); do',
         '        case ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; ci=$i; break ;; esac',
         '    done',
         '    COMPREPLY=()',
         '    if [ -z "$cmd" ]; then',
         '        COMPREPLY=($(compgen -W "%s %s" -- "$cur"))' % (' '.join(cmds), ' '.join(top)),
         '        return 0',
         '    fi',
         '    local flags="" subs="" ids=0',
         '    case $cmd in']
    for c in cmds:
        inf = infos[c]
        o.append('    %s)' % c)
        o.append('        flags="%s"' % ' '.join(inf['flags']))
        if inf['subs']:
            o.append('        subs="%s"' % ' '.join(inf['subs']))
        if inf['ids_after_sub']:
            o.append('        ids=1')
        cases = []
        for f, v in sorted(inf['takes'].items()):
            if f == '--repo':
                cases.append('            --repo) COMPREPLY=($(compgen -W "$(_memgate_repo_ids)" -- "$cur")); return 0 ;;')
            elif f in inf['choices']:
                cases.append('            %s) COMPREPLY=($(compgen -W "%s" -- "$cur")); return 0 ;;'
                             % (f, ' '.join(inf['choices'][f])))
            else:
                cases.append('            %s) return 0 ;;' % f)
        if cases:
            o.append('        case $prev in')
            o.extend(cases)
            o.append('        esac')
        o.append('        ;;')
    o += ['    esac',
          '    if [[ $cur == -* ]]; then',
          '        COMPREPLY=($(compgen -W "$flags" -- "$cur"))',
          '    elif [ -n "$subs" ] && [ "$COMP_CWORD" -eq $((ci + 1)) ]; then',
          '        COMPREPLY=($(compgen -W "$subs" -- "$cur"))',
          '    elif [ "$ids" = 1 ] && [ "$COMP_CWORD" -eq $((ci + 2)) ]; then',
          '        COMPREPLY=($(compgen -W "$(_memgate_repo_ids)" -- "$cur"))',
          '    fi',
          '    return 0',
          '}',
          '# -o default: paths (index PATH, scan PATH, ...) when nothing above matches',
          'complete -o default -F _memgate memgate']
    return '\n'.join(o) + '\n'


def zq(s):
    """a zsh _arguments description: no brackets, colons or quotes"""
    s = re.sub(r'[\[\]:\'"`\\$]', '', s)
    return s[:70]


def zsh_completion(cmds, summaries, infos, top):
    o = ['#compdef memgate', '# zsh completion for memgate; generated by scripts/helpdocs.py from memgate --help',
         '_memgate_repo_ids() {',
         '  local -a ids',
         "  ids=(${(f)\"$(memgate repos --json 2>/dev/null | tr '{' '\\n' | %s)\"})" % IDS_SED,
         "  _describe -t repos 'repo id' ids",
         '}',
         '_memgate() {',
         '  local -a cmds',
         '  cmds=(']
    for c in cmds:
        o.append("    '%s:%s'" % (c, zq(summaries[c])))
    o += ['  )',
          '  if (( CURRENT == 2 )); then',
          "    if [[ $words[2] == -* ]]; then compadd -- %s; else _describe -t commands 'memgate command' cmds; fi"
          % ' '.join(top),
          '    return',
          '  fi',
          '  local cmd=$words[2]',
          '  shift words; (( CURRENT-- ))',
          '  case $cmd in']
    for c in cmds:
        inf = infos[c]
        specs = []
        for f in inf['flags']:
            d = zq(inf['descs'].get(f, ''))
            if f in inf['takes']:
                if f == '--repo':
                    act = '_memgate_repo_ids'
                elif f in inf['choices']:
                    act = '(%s)' % ' '.join(inf['choices'][f])
                elif inf['takes'][f] in ('PATH', 'FILE', 'DIR', 'PATH|ID', 'JSON|FILE'):
                    act = '_files'
                else:
                    act = ' '  # a value of its own: nothing to offer
                specs.append("'*%s[%s]:%s:%s'" % (f, d, zq(inf['takes'][f]).lower() or 'value', act))
            else:
                specs.append("'*%s[%s]'" % (f, d))
        if inf['subs']:
            specs.append("'1:subcommand:(%s)'" % ' '.join(inf['subs']))
            specs.append("'*:argument:%s'" % ('_memgate_repo_ids' if inf['ids_after_sub'] else '_files'))
        else:
            specs.append("'*:argument:_files'")
        o.append('    %s)' % c)
        o.append('      _arguments -s \\')
        o.append(' \\\n'.join('        ' + s for s in specs))
        o.append('      ;;')
    o += ['  esac', '}', '_memgate "$@"']
    return '\n'.join(o) + '\n'


def fq(s):
    return "'" + s.replace('\\', '\\\\').replace("'", "\\'") + "'"


def fish_completion(cmds, summaries, infos, top):
    o = ['# fish completion for memgate; generated by scripts/helpdocs.py from memgate --help',
         'function __memgate_repo_ids',
         "    memgate repos --json 2>/dev/null | string split '{' | string match -r -g '\"id\": *\"([^\"]*)\"'",
         'end',
         '# true when the command (the first word that is not an option) is $argv[1]',
         'function __memgate_cmd_is',
         '    set -l words (commandline -opc)',
         '    for w in $words[2..-1]',
         "        string match -q -- '-*' $w; and continue",
         '        test "$w" = "$argv[1]"',
         '        return',
         '    end',
         '    return 1',
         'end',
         '# the number of words after the command, the one being typed excluded',
         'function __memgate_nargs',
         '    set -l words (commandline -opc)',
         '    set -l n -1',
         '    for w in $words[2..-1]',
         "        string match -q -- '-*' $w; and test $n -lt 0; and continue",
         '        set n (math $n + 1)',
         '    end',
         '    echo $n',
         'end',
         ]
    for c in cmds:
        o.append('complete -c memgate -n __fish_use_subcommand -f -a %s -d %s' % (c, fq(summaries[c])))
    for t in top:
        if t.startswith('--'):
            o.append('complete -c memgate -n __fish_use_subcommand -l %s' % t[2:])
        else:
            o.append('complete -c memgate -n __fish_use_subcommand -s %s' % t[1:])
    for c in cmds:
        inf = infos[c]
        cond = "'__memgate_cmd_is %s'" % c
        for f in inf['flags']:
            opt = ('-l ' + f[2:]) if f.startswith('--') else ('-s ' + f[1:])
            extra = ''
            if f in inf['takes']:
                if f == '--repo':
                    extra = " -x -a '(__memgate_repo_ids)'"
                elif f in inf['choices']:
                    extra = " -x -a %s" % fq(' '.join(inf['choices'][f]))
                else:
                    extra = ' -r'
            d = inf['descs'].get(f, '')
            o.append('complete -c memgate -n %s %s%s%s' % (cond, opt, extra, (' -d ' + fq(d)) if d else ''))
        if inf['subs']:
            o.append("complete -c memgate -n '__memgate_cmd_is %s; and test (__memgate_nargs) -eq 0' -f -a %s"
                     % (c, fq(' '.join(inf['subs']))))
            if inf['ids_after_sub']:
                o.append("complete -c memgate -n '__memgate_cmd_is %s; and test (__memgate_nargs) -eq 1' -f"
                         " -a '(__memgate_repo_ids)'" % c)
    return '\n'.join(o) + '\n'


def main():
    if len(sys.argv) != 3 or sys.argv[1] in ('-h', '--help'):
        sys.stdout.write(__doc__.split('\n\n')[1] + '\n\n' + __doc__.split('\n\n')[2] + '\n')
        sys.exit(0 if len(sys.argv) == 2 else 2)
    binary, outdir = sys.argv[1], sys.argv[2]
    top_text = run_help(binary, ['--help'])
    head = top_text.split('\n', 1)[0]
    m = re.match(r'^memgate (\S+) \u2014 (.*)$', head)
    if not m:
        die("internal]: the first line of memgate --help is not 'memgate VERSION \u2014 SUMMARY'")
    version, summary = m.group(1), m.group(2)
    top_doc = parse(top_text.split('\n', 2)[2])
    cmds, summaries = [], {}
    for n, bl in top_doc['sections']:
        if n == 'commands':
            for b in bl:
                if b[0] == 'items':
                    for term, text in b[1]:
                        cmds.append(term)
                        summaries[term] = ' '.join(text)
    if len(cmds) < 1:
        die("internal]: memgate --help lists no commands")
    mandir = os.path.join(outdir, 'man')
    compdir = os.path.join(outdir, 'completions')
    os.makedirs(mandir, exist_ok=True)
    os.makedirs(compdir, exist_ok=True)
    # the flags of memgate itself: not those the commands' summaries mention
    top_flags_text = re.sub(r'\ncommands:\n(  .*\n)*', '\n', top_text)
    pages = {'memgate': manpage('memgate', summary, version, top_doc, top_flags_text,
                                ['memgate-' + c for c in cmds])}
    infos = {}
    for c in cmds:
        text = run_help(binary, [c, '--help'])
        doc = parse(text)
        pages['memgate-' + c] = manpage('memgate-' + c, summaries[c], version, doc, text, ['memgate'])
        infos[c] = cmd_info(c, text, doc)
    top = sorted(help_flags(top_flags_text))
    files = {os.path.join(mandir, p + '.1'): t for p, t in pages.items()}
    files[os.path.join(compdir, 'memgate.bash')] = bash_completion(cmds, infos, top)
    files[os.path.join(compdir, '_memgate')] = zsh_completion(cmds, summaries, infos, top)
    files[os.path.join(compdir, 'memgate.fish')] = fish_completion(cmds, summaries, infos, top)
    for path, text in files.items():
        with open(path + '.tmp', 'w', encoding='utf-8') as f:
            f.write(text)
        os.replace(path + '.tmp', path)


if __name__ == '__main__':
    main()
