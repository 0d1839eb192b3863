# zsh-complete.zsh — the matches zsh's completion offers for a command line,
# one a line: an interactive zsh in a pseudo-terminal (zpty) with compinit and
# the completion functions of COMPDIR, compadd wrapped to print what it adds,
# then LINE and a TAB. For packaging.test.mjs.
#
# Each step waits for the shell's own output, not the echo of what was typed
# ('<<RE''ADY>>' prints <<READY>>, which its echo does not hold), and nothing
# more is typed until the matches have come: typed-ahead input can make zle
# skip work, and under load the TAB was still pending when the next line came.
#
# compinit -D: no dump file. (-d /dev/null made zsh's compdump write a
# temporary file and move it over /dev/null, which then was a regular file
# for every later program on the machine: PostgreSQL's initdb among them.)
#
# usage: zsh -f tests/node/lib/zsh-complete.zsh COMPDIR "LINE"
zmodload zsh/zpty
typeset -F SECONDS
zpty z zsh -f -i
zpty -w z "PROMPT=''; RPROMPT=''; unsetopt zle_bracketed_paste 2>/dev/null; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'compadd () { local -a __h; builtin compadd -O __h "$@"; (( $#__h )) && print -r -l -- "<<M>>"${^__h}; builtin compadd "$@" }'
zpty -w z "bindkey '^I' complete-word"
zpty -w z "print '<<RE''ADY>>'"
zpty -r -m z line '*<<READY>>*' >/dev/null

# read what comes until PATTERN is in it or LIMIT seconds have passed
out=''
upto() {
  local limit=$(( SECONDS + $2 ))
  while (( SECONDS < limit )); do
    if zpty -r -t z line 2>/dev/null; then out+=$line; else sleep 0.05; fi
    [[ $out == $~1 ]] && return 0
  done
  return 1
}
zpty -n -w z "$2"$'\t'
upto '*<<M>>*' 8 && upto '*<<NEVER>>*' 0.3 # the matches, then the rest of them
zpty -w z $'\C-a\C-k'"print '<<DO''NE>>'"
upto '*<<DONE>>*' 8
print -r -- "$out" | tr -d '\r' | grep -a -o '<<M>>[^<]*' | sed 's/<<M>>//' | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | sort -u
zpty -d z
