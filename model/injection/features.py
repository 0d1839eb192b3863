"""features.py - the prompt-injection model's tokens and features, as
src/security/injection_model.c computes them (the two must agree: the
model header carries check scores that tests/test_injection_model.c
recomputes in C).

Tokens: a run of ASCII letters and digits (lower-cased) and characters
beyond ASCII is a word; a CJK character (U+2E80-U+9FFF, U+F900-U+FAFF,
U+3040-U+30FF are inside the first) is a word alone; everything else
(ASCII punctuation and space, U+2000-U+206F, U+3000-U+303F, U+FF00-U+FF0F,
U+FF1A-U+FF20, U+FF3B-U+FF40, U+FF5B-U+FF65) ends a word. A word's hash is
FNV-1a (32 bits) of its UTF-8 bytes; a word of digits only is "0" (numbers,
addresses and ports say nothing of intent, and the corpora's made-up ones
would be learnt); a URL (http:// or https:// after no letter or digit, up
to a space, quote, angle bracket, backquote or closing parenthesis) is the
word "url", and the domain after an address's @ the word "email". Each word gives three features: the
word, the word with the one before it, the word with the one two before it,
each a 64-bit key whose product with K64 gives a weight's index in its top
bits (one multiply). A text's score is the
bias plus, over the WINDOW words whose sum is greatest, the weights of their
features (each word's features counted at that word, so the first words of
a window keep their pairs with the words before it); the whole text when it
is shorter.
"""

import re

NBUCKETS = 1 << 18
WINDOW = 64
M32 = 0xFFFFFFFF


def fnv(b):
    h = 0x811C9DC5
    for c in b:
        h = ((h ^ c) * 0x01000193) & M32
    return h


def _sep(cp):
    return (0x2000 <= cp <= 0x206F or 0x3000 <= cp <= 0x303F or 0xFF00 <= cp <= 0xFF0F
            or 0xFF1A <= cp <= 0xFF20 or 0xFF3B <= cp <= 0xFF40 or 0xFF5B <= cp <= 0xFF65)


def _cjk(cp):
    return 0x2E80 <= cp <= 0x9FFF or 0xF900 <= cp <= 0xFAFF


URL = re.compile(r"(?<![A-Za-z0-9])[Hh][Tt][Tt][Pp][Ss]?://[^ \t\n\r\f\v\"'<>`)]*")
EMAIL = re.compile(r"(?<=[A-Za-z0-9._%+-])@(?=[A-Za-z0-9])[A-Za-z0-9.-]+")


def words(text):
    # a URL is the word "url" and an address's domain the word "email": which hosts a corpus made up is
    # not what makes a text an instruction
    text = EMAIL.sub(" email ", URL.sub(" url ", text))
    out, cur = [], []
    for ch in text:
        cp = ord(ch)
        if cp < 0x80:
            if ch.isalnum():
                cur.append(ch.lower() if "A" <= ch <= "Z" else ch)
                continue
            if cur:
                out.append("".join(cur))
                cur = []
        elif _sep(cp):
            if cur:
                out.append("".join(cur))
                cur = []
        elif _cjk(cp):
            if cur:
                out.append("".join(cur))
                cur = []
            out.append(ch)
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur))
    return [fnv(b"0" if w.isascii() and w.isdigit() else w.encode("utf-8", "surrogatepass")) for w in out]


K64 = 0x9E3779B97F4A7C15
BITS = NBUCKETS.bit_length() - 1


def bucket(x):
    """A 64-bit key's weight: the top BITS bits of its product with K64."""
    return ((x * K64) & 0xFFFFFFFFFFFFFFFF) >> (64 - BITS)


def word_features(hs):
    """For each word, its three bucket indexes: the word; the word after the one before it; the word after
    the one two before it (0 for a word that is not there)."""
    out = []
    for i, t in enumerate(hs):
        a = hs[i - 1] if i >= 1 else 0
        b = hs[i - 2] if i >= 2 else 0
        out.append((bucket(t), bucket(((a << 32) | t) ^ 0x5BD1E9955BD1E995),
                    bucket(((b << 32) | t) ^ 0x27D4EB2F165667B1)))
    return out


def score(w, bias, wf):
    """The best window's score of a text's word features wf (weights w)."""
    if not wf:
        return bias
    c = [w[x] + w[y] + w[z] for x, y, z in wf]
    s = sum(c[:WINDOW])
    best = s
    for i in range(WINDOW, len(c)):
        s += c[i] - c[i - WINDOW]
        if s > best:
            best = s
    return bias + best


def best_window(w, wf):
    """The start of the best window (for training on the part that decides)."""
    if len(wf) <= WINDOW:
        return 0
    c = [w[x] + w[y] + w[z] for x, y, z in wf]
    s = sum(c[:WINDOW])
    best, at = s, 0
    for i in range(WINDOW, len(c)):
        s += c[i] - c[i - WINDOW]
        if s > best:
            best, at = s, i - WINDOW + 1
    return at
