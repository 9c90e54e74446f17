#!/usr/bin/env bash
# Shows against the real `claude` CLI exactly what the model receives from memory.md, and
# checks the parts memloop relies on for saying how recent a fact is:
#
#   scripts/check-claude-memory.sh [path/to/claude]      (default: the `claude` on PATH)
#
# Writes a throwaway HOME's ~/.claude/rules/memory.md by hand, shaped like memloop's output
# (title, MANAGED_COMMENT, VISIBLE_LINE from src/render.rs, `## Identity` and `## Preferences`
# sections), with bullets with and without an ` (as of YYYY-MM)` suffix, each holding a
# unique token. Then `claude -p hi` runs against a loopback mock of the Anthropic Messages
# API that logs every request body, and the check reads the first Messages request: every
# bullet must arrive verbatim, suffix included; the wrapper Claude Code puts before the
# file must call it the user's private global instructions that OVERRIDE default behavior;
# VISIBLE_LINE must arrive; today's date must be in the same request. It prints where
# memory.md lands, the whole block holding it, whether the HTML comment is sent, and the
# words giving today's date.
# It runs in a network namespace with only loopback (unshare -rn) when it can, so nothing
# reaches the real network; not part of `cargo test`. Needs python3, not cargo or memloop.
# Last run against Claude Code 2.1.197 (npm @anthropic-ai/claude-code).
set -u
cd "$(dirname "$0")/.."
if [ "${1:-}" != --inside ]; then
  claude=${1:-$(command -v claude)} || { echo "no claude on PATH" >&2; exit 2; }
  claude=$(readlink -f "$claude")
  if unshare -rn true 2>/dev/null; then
    exec unshare -rn "$0" --inside "$claude" yes
  fi
  echo "note: no network namespace (unshare -rn); the mock is on loopback, other traffic is not blocked" >&2
  exec "$0" --inside "$claude" no
fi
claude=$2
[ "$3" = yes ] && { ip link set lo up 2>/dev/null || /sbin/ip link set lo up; }
work=$(mktemp -d "${TMPDIR:-/tmp}/memloop-memory-XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT
echo "claude $("$claude" --version 2>/dev/null)"

# memloop's header, from src/render.rs (MANAGED_COMMENT, VISIBLE_LINE).
comment=$(sed -n 's/^pub const MANAGED_COMMENT: &str = "\(.*\)";$/\1/p' src/render.rs)
visible=$(sed -n 's/^pub const VISIBLE_LINE: &str = "\(.*\)";$/\1/p' src/render.rs)
[ -n "$comment" ] && [ -n "$visible" ] || { echo "MANAGED_COMMENT or VISIBLE_LINE not found in src/render.rs" >&2; exit 2; }
h=$work/home
mkdir -p "$h/.claude/rules"
echo '{"hasCompletedOnboarding": true}' > "$h/.claude.json"
t=MEMTOK-$$-$RANDOM
cat > "$h/.claude/rules/memory.md" <<MD
# Memory

$comment

$visible

## Identity

- Lives in Munich $t-1. (as of 2025-03)
- Works as a nurse $t-2.

## Preferences

- Prefers tea over coffee $t-3. (as of 2024-11)
- Uses vim $t-4.
- Drinks oat milk $t-5. (as of 2026-01)
MD
echo "--- memory.md as written"
cat "$h/.claude/rules/memory.md"

port=$(( 20000 + RANDOM % 20000 ))
log=$work/requests.jsonl
python3 scripts/mock-messages.py "$port" "$log" & pids+=($!)
sleep 0.5
(cd "$h" && env -i HOME="$h" PATH=/usr/bin:/bin TMPDIR="${TMPDIR:-/tmp}" \
  ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=dummy \
  DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
  timeout 120 "$claude" -p hi > "$work/claude.out" 2> "$work/claude.err")
echo "--- claude -p hi: exit $?, $(wc -l < "$log" 2>/dev/null || echo 0) request(s), answered: $(head -c 200 "$work/claude.out")"
[ -s "$log" ] || { echo "FAIL  no request reached the mock"; cat "$work/claude.err"; exit 2; }

python3 - "$log" "$h/.claude/rules/memory.md" "$comment" "$visible" "$(date +%F)" <<'PY'
import json, re, sys
log, md_path, comment, visible, today = sys.argv[1:]
md = open(md_path).read()
bullets = [l for l in md.splitlines() if l.startswith("- ")]
reqs = [json.loads(l) for l in open(log)]
req = next(json.loads(r["body"]) for r in reqs if r["path"].split("?")[0] == "/v1/messages")
# Every text block of the request, named by where it sits.
blocks = [(f"system[{i}]", b["text"]) for i, b in enumerate(req.get("system") or [])]
for i, m in enumerate(req["messages"]):
    c = m["content"]
    for j, b in enumerate([{"type": "text", "text": c}] if isinstance(c, str) else c):
        if b.get("type") == "text":
            blocks.append((f"messages[{i}] ({m['role']}) content[{j}]", b["text"]))
failed = 0
def check(ok, what):
    global failed
    print(("ok    " if ok else "FAIL  ") + what)
    failed |= not ok
for b in bullets:
    where = [n for n, t in blocks if b + "\n" in t + "\n"]
    check(bool(where), f"verbatim in {', '.join(where) or 'no block'}: {b}")
home = [(n, t) for n, t in blocks if bullets[0] in t]
if not home:
    sys.exit(1)
name, text = home[0]
print(f"--- memory.md lands in {name}, {'inside' if '<system-reminder>' in text else 'outside'} <system-reminder>; the whole block:")
print(text)
print("--- end of block")
start = text.find("# Memory\n")
wrapper = text[:start]
check(f"Contents of {md_path} (user's private global instructions for all projects):" in wrapper,
      "wrapper names the file as the user's private global instructions for all projects")
check("IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written." in wrapper,
      "wrapper says the instructions OVERRIDE any default behavior")
check(visible in text, "VISIBLE_LINE is sent")
sent = [n for n, t in blocks if "Managed by memloop" in t]
print(f"note  the HTML comment (MANAGED_COMMENT) is {'SENT in ' + ', '.join(sent) if sent else 'stripped (not in the request)'}")
dates = [(n, m.group(0)) for n, t in blocks for m in re.finditer(r"[^\n]*" + today + r"[^\n]*", t)]
check(bool(dates), f"today's date {today} is in the request")
for n, s in dates:
    print(f"        {'same block as memory.md' if n == name else n}: {s.strip()}")
def strings(v):
    if isinstance(v, str): yield v
    elif isinstance(v, (list, dict)):
        for x in (v.values() if isinstance(v, dict) else v): yield from strings(x)
for m in sorted({m for s in strings(req) for m in re.findall(r"[^\n.]*(?:current month is|knowledge cutoff is) [^\n.]*", s)}):
    print(f"note  elsewhere in the request (system prompt or tools): {m.strip(' -')}")
sys.exit(failed)
PY
