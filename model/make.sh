#!/bin/sh
# make.sh — `make model`: the code model again, from the corpus (model/corpus.tsv).
# Needs bare mirrors of the corpus's repositories under $MODEL_MIRRORS (default
# /work/.mirror, laid out OWNER+NAME/repo; pairs.py says how to clone one that is
# missing) and python3-torch and python3-numpy from Debian (installed if missing).
# Writes model/memgate-code.mgm and model/PROVENANCE.md; `make` then compiles the
# new model in.
set -eu
cd "$(dirname "$0")/.."
if ! /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null; then
    SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get install -y python3-torch python3-numpy
fi
mkdir -p build/model
/usr/bin/python3 model/pairs.py build/model/pairs.jsonl
/usr/bin/python3 model/train.py --pairs build/model/pairs.jsonl --tokens build/model/tokens \
    --out model/memgate-code.mgm --provenance model/PROVENANCE.md "$@"
