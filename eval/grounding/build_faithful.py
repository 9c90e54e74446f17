#!/usr/bin/env python3
"""Builds eval/grounding/faithful.jsonl: quotes that are faithful to what the person typed but
not letter for letter, made from the true pairs of eval/grounding/true-*.jsonl by fixed
rewrites (one `kind` each). Tune items come from tune sources, held items from held sources.
`turn` is what the person typed (sometimes rewritten too, as the kind says), `quote` what a
model returned; the fact is the true pair's. No network, no randomness: items are chosen
in the order of a hash of their id.

    python3 eval/grounding/build_faithful.py
"""

import hashlib
import json
import re
from pathlib import Path

HERE = Path("eval/grounding")
PER_KIND = 120

CONTRACTIONS = {
    "I'm": "I am", "I'd": "I would", "I'll": "I will", "I've": "I have", "it's": "it is",
    "It's": "It is", "that's": "that is", "That's": "That is", "don't": "do not",
    "Don't": "Do not", "doesn't": "does not", "didn't": "did not", "can't": "cannot",
    "won't": "will not", "isn't": "is not", "we're": "we are", "We're": "We are",
    "we'll": "we will", "we'd": "we would", "they're": "they are", "there's": "there is",
    "what's": "what is", "What's": "What is", "let's": "let us", "Let's": "Let us",
    "wouldn't": "would not", "I'll've": "I will have", "you're": "you are",
}
EXPANDED = {v: k for k, v in CONTRACTIONS.items() if k != "I'll've"}

NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
           "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
           "eighteen", "nineteen", "twenty"]

US_UK = {
    "theater": "theatre", "theaters": "theatres", "center": "centre", "favorite": "favourite",
    "favorites": "favourites", "color": "colour", "colors": "colours", "traveling": "travelling",
    "traveler": "traveller", "travelers": "travellers", "organize": "organise",
    "neighborhood": "neighbourhood", "flavor": "flavour", "check": "cheque", "program": "programme",
    "apologize": "apologise", "realize": "realise", "recognize": "recognise", "canceled": "cancelled",
    "jewelry": "jewellery", "labor": "labour", "honor": "honour", "humor": "humour",
    "defense": "defence", "license": "licence", "mom": "mum", "gray": "grey", "meter": "metre",
    "analyze": "analyse", "catalog": "catalogue", "fulfill": "fulfil", "enroll": "enrol",
    "behavior": "behaviour", "harbor": "harbour", "neighbor": "neighbour", "rumor": "rumour",
    "pajamas": "pyjamas", "tire": "tyre", "aluminum": "aluminium", "airplane": "aeroplane",
    "apartment": "flat", "vacation": "holiday",
}
# Only spelling pairs (not word swaps such as apartment/flat) are used.
SPELLING = {k: v for k, v in US_UK.items() if k not in ("mom", "apartment", "vacation", "airplane", "check", "program", "tire")}
UK_US = {v: k for k, v in SPELLING.items()}

INTENSIFIERS = ["really", "very", "so", "actually", "just"]
NUMERIC_FAMILY = re.compile(r"(number|party_size|travelers|group_size|num_passengers|passengers|stay_length|star_rating|seats|riders|adults|beds|baths|rooms|days|tickets)")


def h(s):
    return int(hashlib.sha256(s.encode("utf-8")).hexdigest()[:12], 16)


def load():
    pairs = []
    for p in sorted(HERE.glob("true-*.jsonl")):
        pairs += [json.loads(l) for l in p.read_text(encoding="utf-8").splitlines() if l.strip()]
    return sorted(pairs, key=lambda x: h(x["id"] + x["fact"]))


def word_sub(text, table, limit=1):
    """Replaces the first word of `text` found in `table` (whole words, case kept as given)."""
    for m in re.finditer(r"[A-Za-z][A-Za-z']*", text):
        w = m.group(0)
        if w in table:
            return text[: m.start()] + table[w] + text[m.end():], w
    return None, None


def phrase_sub(text, table):
    for k in sorted(table, key=len, reverse=True):
        m = re.search(r"(?<![A-Za-z])" + re.escape(k) + r"(?![A-Za-z])", text)
        if m:
            return text[: m.start()] + table[k] + text[m.end():], k
    return None, None


def in_turn(it, new_quote_in_turn):
    """The turn with the quote's span replaced."""
    return it["turn"].replace(it["quote"], new_quote_in_turn, 1)


def typo(word):
    """Swaps the two letters after the middle of a long word (deterministic)."""
    i = len(word) // 2
    return word[:i] + word[i + 1] + word[i] + word[i + 2:]


def kinds(it):
    """Every rewrite that applies to one true pair: (kind, turn, quote)."""
    t, q = it["turn"], it["quote"]
    out = []
    if it["quote"] not in t:
        return out
    en = it["lang"] == "en"
    if not en:
        out.append(("non-english", t, q))
        if re.search(r"\d", it["fact"]):
            out.append(("number", t, q))
        if "，" in q:
            out.append(("cjk-punctuation", t, q.replace("，", ", ").replace("。", ".")))
        return out
    # Contractions, both ways (the turn as typed, the quote rewritten).
    nq, _ = phrase_sub(q, CONTRACTIONS)
    if nq:
        out.append(("contraction-expanded", t, nq))
    nq, _ = phrase_sub(q, EXPANDED)
    if nq:
        out.append(("contraction-contracted", t, nq))
    # A typo in a long word of the turn, fixed in the quote.
    longs = [w for w in re.findall(r"[A-Za-z]{8,}", q) if w.isalpha()]
    if longs:
        w = max(longs, key=len)
        nt = in_turn(it, q.replace(w, typo(w), 1))
        if typo(w) != w:
            out.append(("typo-fixed", nt, q))
    # The person's "..." (made from their first comma), quoted as ". . .", "…" or exactly.
    if ", " in q:
        e = q.replace(", ", "... ", 1)
        nt = in_turn(it, e)
        out.append(("ellipsis-spaced", nt, e.replace("...", ". . .")))
        out.append(("ellipsis-unicode", nt, e.replace("...", "…")))
        out.append(("own-ellipsis", nt, e))
    # Numbers: digits in the turn, words in the quote, and the other way.
    m = re.search(r"(?<![\d,.:$])\b(\d{1,2})\b(?![\d,.:])", q)
    if m and int(m.group(1)) <= 20:
        words = q[: m.start()] + NUMBERS[int(m.group(1))] + q[m.end():]
        out.append(("digits-to-words", t, words))
        out.append(("words-to-digits", in_turn(it, words), q))
    m = re.search(r"\b(" + "|".join(NUMBERS[1:]) + r")\b", q, re.I)
    if m:
        n = NUMBERS.index(m.group(1).lower())
        digits = q[: m.start()] + str(n) + q[m.end():]
        out.append(("words-to-digits", t, digits))
        out.append(("digits-to-words", in_turn(it, digits), q))
    # Spelling: American turn, British quote; and a British turn, American quote.
    nq, w = word_sub(q, SPELLING)
    if nq:
        out.append(("american-to-british", t, nq))
        out.append(("british-to-american", in_turn(it, nq), q))
    nq, w = word_sub(q, UK_US)
    if nq:
        out.append(("british-to-american", t, nq))
    # An intensifier the quote leaves out: the person's own, or one put before their verb.
    m = re.search(r"\b(" + "|".join(INTENSIFIERS) + r") (?=[a-z])", q)
    if m:
        out.append(("intensifier-dropped", t, q[: m.start()] + q[m.end():]))
    else:
        m = re.search(r"\b(I|I'd|I would|We|we) (want|need|like|love|prefer|would like)\b", q)
        if m:
            word = INTENSIFIERS[h(it["id"]) % 2]  # really / very is odd before verbs: use really or so
            word = "really" if word == "very" else word
            nt = in_turn(it, q[: m.start(2)] + word + " " + q[m.start(2):])
            out.append(("intensifier-dropped", nt, q))
    # A quote across a blank line: the turn's next sentence put in a second paragraph.
    at = t.find(q)
    rest = t[at + len(q):]
    m = re.match(r"\s+(\S[^.!?]*[.!?])", rest)
    if m and len(q) + 1 + len(m.group(1)) <= 200:
        nt = t[: at + len(q)] + "\n\n" + rest[len(rest) - len(rest.lstrip()):]
        out.append(("blank-line", nt, q + " " + m.group(1)))
    # Quote marks: straight in the turn and curly in the quote, and the other way.
    if "'" in q:
        out.append(("curly-quotes", t, q.replace("'", "\u2019")))
        out.append(("straight-quotes", in_turn(it, q.replace("'", "\u2019")), q))
    # A number as the fact's main content (the pair as it is).
    if NUMERIC_FAMILY.search(it.get("family", "")):
        out.append(("number", t, q))
    # The fact inflects a word of the quote otherwise ("bedroom" / "bedrooms").
    qw = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", q)}
    fw = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", it["fact"])}
    if any(f not in qw and any(f[:4] == w[:4] and f != w for w in qw) for f in fw):
        out.append(("inflected", t, q))
    return out


def main():
    counts = {}
    rows = []
    for it in load():
        for kind, turn, quote in kinds(it):
            key = (it["split"], kind)
            if counts.get(key, 0) >= PER_KIND or quote == it["quote"] and kind not in ("typo-fixed", "british-to-american", "intensifier-dropped", "blank-line", "straight-quotes", "number", "digits-to-words", "words-to-digits", "inflected", "non-english", "own-ellipsis"):
                continue
            counts[key] = counts.get(key, 0) + 1
            rows.append({
                "turn": turn, "quote": quote, "fact": it["fact"], "kind": kind,
                "source": it["source"], "lang": it["lang"], "split": it["split"], "id": it["id"],
            })
    rows.sort(key=lambda r: (r["split"] == "held", r["kind"], r["id"]))
    with open(HERE / "faithful.jsonl", "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    for k in sorted(counts):
        print(k, counts[k])


if __name__ == "__main__":
    main()
