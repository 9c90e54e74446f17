#!/usr/bin/env python3
"""Checks that every eval JSONL file parses and has the fields its set needs, with a split
of `tune` or `held`. Prints counts per file, split and kind/source. Exit 1 on any fault.

    python3 scripts/check_eval_jsonl.py
"""

import collections
import json
import sys
from pathlib import Path

NEEDS = {
    "facts": ["text", "source", "lang", "split"],
    "injections": ["text", "source", "lang", "split"],
    "grounding/true-": ["turn", "quote", "fact", "source", "lang", "split"],
    "grounding/faithful": ["turn", "quote", "fact", "kind", "source", "lang", "split"],
    "grounding/planted": ["turn", "quote", "fact", "kind", "source", "split"],
}


def needs(path):
    rel = path.relative_to("eval").as_posix()
    for prefix, fields in NEEDS.items():
        if rel.startswith(prefix):
            return fields
    return None


def main():
    bad = 0
    for path in sorted(Path("eval").rglob("*.jsonl")):
        fields = needs(path)
        if fields is None:
            continue
        counts = collections.Counter()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                d = json.loads(line)
            except json.JSONDecodeError as e:
                print(f"{path}:{n}: not JSON: {e}")
                bad += 1
                continue
            missing = [f for f in fields if not isinstance(d.get(f), str) or not d[f]]
            if missing or d["split"] not in ("tune", "held"):
                print(f"{path}:{n}: missing or bad {missing or 'split'}")
                bad += 1
                continue
            counts[(d["split"], d.get("kind") or d.get("form") or d["source"])] += 1
        total = sum(counts.values())
        held = sum(v for (s, _), v in counts.items() if s == "held")
        print(f"{path}: {total} items, {held} held")
        for (s, k), v in sorted(counts.items()):
            print(f"    {s:<5} {k:<40} {v}")
    if bad:
        print(f"{bad} faults")
        sys.exit(1)


if __name__ == "__main__":
    main()
