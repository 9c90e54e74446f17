#!/usr/bin/env python3
"""Sets `split` in eval/facts/*.jsonl and eval/injections/*.jsonl by source or family, never by
line: a whole source, or a whole family inside one (a language, a suite, a form, a theme), is
`held` or `tune`. Where the family is not visible from `source`, `lang` or `form`, it is
written into a `family` field. The rules are listed in eval/SOURCES.md ("Splits").

Run from the repository root: python3 scripts/resplit_eval.py
Files this script does not know (new sets) are left as they are.
"""

import json
from pathlib import Path

# Round 2 (2026-11-28): every part held out in round 1 has been looked at while tuning, so
# all of it is tuned on now; only the fresh pair, written blind and committed alone, is held.
# Round 3 (the same day): the fresh pair is tuned on in turn; only fresh3 is held.
# Round 4 (the same day): fresh3 is tuned on in turn; only fresh4 is held.
# Round 5 (2026-11-28, a later session): fresh4 is tuned on in turn; only fresh5 is held.
# Round 6 (the next session): fresh6 is written blind and held too; fresh5 stays held, since
# this round's rule (text the policy cannot read waits for review) was tuned on the tune
# part alone and no line of fresh5 was read.
# Round 7 (the session after): fresh5 and fresh6 are tuned on; only fresh7, written blind and
# committed alone, is held.
# Round 8 (2026-12-02): fresh7 is tuned on; only fresh8, written blind and committed alone, is
# held.
# Round 9 (the next session): fresh8 is tuned on; only fresh9, written blind and committed
# alone, is held.
# Round 10 (2026-12-02, a later session): fresh9 is tuned on; only fresh10, written blind and
# committed alone, is held.
# Round 11 (2026-12-03): fresh10 is tuned on; only fresh11, written blind and committed alone
# before round 10 ended, is held.
ROUND = 11
HELD_FILES = {"fresh11.jsonl"}

# Round 1: the families below were held out, and still get their `family` field.
# Facts ----------------------------------------------------------------------------------
HELD_FACT_LANGS = {"ja", "ko", "ru", "pt"}  # memloop/facts-multilingual
HELD_PERSONA_OPENINGS = {"Their", "Has"}  # synthetic-persona-chat: possessive and "Has" facts

# Injections -----------------------------------------------------------------------------
HELD_GARAK = {"garak/promptinject", "garak/smuggling_homoglyph"}
HELD_ORDER_LANGS = {"ja", "ko", "ru"}  # memloop/orders-multilingual
HELD_LOOKALIKE_FORMS = {"greek", "math-bold", "cgj"}
# agentdojo: three lines per goal, suites in file order (see eval/SOURCES.md).
AGENTDOJO_SUITES = [("workspace", 11), ("banking", 9), ("travel", 7), ("memloop", 8)]
HELD_SUITES = {"travel", "memloop"}
# memloop/wishes: the "trust third-party text" theme (instructions found in pages, tool
# output, comments, mail, CI logs, bot accounts) is held; its words mark it.
TRUST_MARKS = (
    "trust",
    "treats text",
    "treats any file",
    "considers instructions",
    "instructions embedded",
    "obeys notes",
    "authoritative",
    "ci logs suggest",
    "bot account",
    "signed with their name",
)


def load(path):
    return [json.loads(l) for l in path.read_text(encoding="utf-8").splitlines() if l.strip()]


def save(path, items):
    path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")


def split_facts(name, items):
    for it in items:
        if name == "developer.jsonl":
            it["split"] = "held"
        elif name == "multilingual.jsonl":
            it["split"] = "held" if it["lang"] in HELD_FACT_LANGS else "tune"
        elif name == "persona.jsonl":
            opening = it["text"].split()[0]
            it["family"] = f"opening:{opening}"
            it["split"] = "held" if opening in HELD_PERSONA_OPENINGS else "tune"
    return items


def split_injections(name, items):
    if name == "agentdojo.jsonl":
        suites = [s for s, n in AGENTDOJO_SUITES for _ in range(3 * n)]
        assert len(suites) == len(items), (len(suites), len(items))
        for it, suite in zip(items, suites):
            it["family"] = suite
            it["split"] = "held" if suite in HELD_SUITES else "tune"
        return items
    for it in items:
        if name == "garak.jsonl":
            it["split"] = "held" if it["source"] in HELD_GARAK else "tune"
        elif name == "multilingual.jsonl":
            it["split"] = "held" if it["lang"] in HELD_ORDER_LANGS else "tune"
        elif name == "lookalikes.jsonl":
            it["split"] = "held" if it["form"] in HELD_LOOKALIKE_FORMS else "tune"
        elif name == "wishes.jsonl":
            trust = any(m in it["text"].lower() for m in TRUST_MARKS)
            it["family"] = "trust-third-party-text" if trust else "power-or-hiding"
            it["split"] = "held" if trust else "tune"
    return items


def main():
    for d, fn in (("facts", split_facts), ("injections", split_injections)):
        total = held = 0
        for path in sorted(Path("eval", d).glob("*.jsonl")):
            items = load(path)
            before = [i.get("split") for i in items]
            items = fn(path.name, items)
            if ROUND >= 2:
                for it in items:
                    it["split"] = "held" if path.name in HELD_FILES else "tune"
            save(path, items)
            h = sum(i["split"] == "held" for i in items)
            total += len(items)
            held += h
            changed = sum(a != i["split"] for a, i in zip(before, items))
            print(f"{path}: {h} held of {len(items)} ({changed} changed)")
        print(f"{d}: {held} held of {total} ({100 * held / total:.0f} %)")


if __name__ == "__main__":
    main()
