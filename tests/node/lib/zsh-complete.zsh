# zsh-complete.zsh — the matches zsh's completion offers for a command line,
# one a line: an interactive zsh in a pseudo-terminal (zpty) with compinit and
# the completion functions of COMPDIR, compadd wrapped to print what it adds,
# then LINE and a TAB. For packaging.test.mjs.
#
# usage: zsh -f tests/node/lib/zsh-complete.zsh COMPDIR "LINE"
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PROMPT=''; RPROMPT=''; unsetopt zle_bracketed_paste 2>/dev/null; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -d /dev/null"
zpty -w z 'compadd () { local -a __h; builtin compadd -O __h "$@"; (( $#__h )) && print -r -l -- "<<M>>"${^__h}; builtin compadd "$@" }'
zpty -w z "bindkey '^I' complete-word"
zpty -w z "print '<<READY>>'"
zpty -r -m z line '*<<READY>>*' >/dev/null
zpty -n -w z "$2"$'\t'
zpty -w z $'\C-a\C-k'"print '<<DONE>>'"
out=''
while zpty -r -t z line 2>/dev/null || sleep 0.1; do
  out+=$line
  [[ $out == *'<<DONE>>'*'<<DONE>>'* ]] && break
  [[ $SECONDS -gt 8 ]] && break  # gives up: the caller sees no matches
done
print -r -- "$out" | tr -d '\r' | grep -a -o '<<M>>[^<]*' | sed 's/<<M>>//' | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' | sort -u
zpty -d z
