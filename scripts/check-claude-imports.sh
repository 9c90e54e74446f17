#!/usr/bin/env bash
# Checks against the real `claude` CLI that no bullet memloop renders into memory.md is read
# as an `@path` import (Claude Code would send that file's contents with every prompt):
#
#   scripts/check-claude-imports.sh [path/to/claude]      (default: the `claude` on PATH)
#   MEMLOOP=path/to/memloop scripts/check-claude-imports.sh   (check another build)
#
# Each case is a fact text holding `@~/impN` in an arrangement that fooled the renderer or
# could (link destinations and titles, autolinks and HTML tags holding a backtick, code
# spans), typed as a bullet into a throwaway HOME's ~/.claude/rules/memory.md; `memloop
# extract` adopts the bullets as the user's facts and renders them, as it renders any fact
# (typed ones are not refused for markup the way `memory remember` refuses it). Then the
# bullet `- control @~/imp0` is added by hand, after memloop, as the positive control. Each ~/impN holds a unique marker. Then `claude -p hi` runs against a
# loopback mock of the Anthropic Messages API that logs every request body, and the check
# reads from the log which markers were sent: the control's must be, no case's may be.
# It runs in a network namespace with only loopback (unshare -rn) when it can, so nothing
# reaches the real network; not part of `cargo test`. Needs python3 and cargo.
# Last run against Claude Code 2.1.197 (npm @anthropic-ai/claude-code).
set -u
cd "$(dirname "$0")/.."
if [ "${1:-}" != --inside ]; then
  claude=${1:-$(command -v claude)} || { echo "no claude on PATH" >&2; exit 2; }
  claude=$(readlink -f "$claude")
  if [ -z "${MEMLOOP:-}" ]; then
    cargo build -q || exit 2
    MEMLOOP=$PWD/target/debug/memloop
  fi
  export MEMLOOP
  if unshare -rn true 2>/dev/null; then
    exec unshare -rn "$0" --inside "$claude" yes
  fi
  echo "note: no network namespace (unshare -rn); the mock is on loopback, other traffic is not blocked" >&2
  exec "$0" --inside "$claude" no
fi
claude=$2
[ "$3" = yes ] && { ip link set lo up 2>/dev/null || /sbin/ip link set lo up; }
work=$(mktemp -d "${TMPDIR:-/tmp}/memloop-imports-XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT
echo "claude $("$claude" --version 2>/dev/null)"
echo "memloop $MEMLOOP"

# The cases: N<TAB>fact text, where {} stands for ~/impN.
cat > "$work/cases" <<'TXT'
1	Links [x](`) @{} and `z` daily.
2	Links [x](`)@{} and `z` daily.
3	Links [x](<`>) @{} and `z` daily.
4	Links [x](/u "`") @{} and `z` daily.
5	Links [x](/u '`')@{} and `z` daily.
6	Autolink <http://a.b/`> @{} and `z` daily.
7	Autolink <http://a.b/`>@{} and `z` daily.
8	Tag <span title="`"> @{} and `z` daily.
9	Tag <span title="`">@{} and `z` daily.
10	Links [x](`)*@{}* and `z` daily.
11	Code `cat @{} now` daily.
12	Code ``cat `@{} now`` daily.
17	Code `a*@{}` and `z` daily.
18	Code `a` @{} `b` daily.
13	Plain @{} daily.
14	Links [x](`) and [y](`) @{} `z`.
15	Links [x]( @~/imp0x) and @{}#frag daily.
16	Image ![x](`) @{} and `z` daily.
19	See [@{}](u) daily.
20	Code *a ``b*@{}#`` daily.
21	Code _a ``b_@{}#`` daily.
22	Uses `@{}` daily.
TXT

h=$work/home
mkdir -p "$h/.claude/rules" "$h/vaults/v"
echo '{"hasCompletedOnboarding": true}' > "$h/.claude.json"
echo "# v" > "$h/vaults/v/CLAUDE.md"
marker() { echo "IMPORT-MARKER-$1-$$-$RANDOM$RANDOM"; }
marker 0 > "$h/imp0"
echo "# Memory" > "$h/.claude/rules/memory.md"
while IFS=$'\t' read -r n text; do
  marker "$n" > "$h/imp$n"
  path="~/imp$n"
  printf -- '- %s\n' "${text//\{\}/$path}" >> "$h/.claude/rules/memory.md"
done < "$work/cases"
# memloop adopts the typed bullets as the user's facts and renders them as it renders any.
env -i HOME="$h" PATH=/usr/bin:/bin XDG_CONFIG_HOME="$h/.config" XDG_STATE_HOME="$h/.local/state" \
  VAULTS_DIR="$h/vaults" MEMLOOP_PROVIDER=builtin "$MEMLOOP" -q extract > /dev/null \
  || { echo "memloop extract failed" >&2; exit 2; }
echo "- control @~/imp0" >> "$h/.claude/rules/memory.md"
echo "--- memory.md as Claude Code reads it"
grep '^- ' "$h/.claude/rules/memory.md"

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

failed=0
sent() { grep -q "$(cat "$h/imp$1")" "$log"; }
if sent 0; then echo "ok    the control @~/imp0 was imported (the check sees imports)"; else echo "FAIL  the control was not imported: the check cannot see imports"; failed=1; fi
while IFS=$'\t' read -r n text; do
  if sent "$n"; then echo "FAIL  imported  $n: $text"; failed=1; else echo "ok    inert     $n: $text"; fi
done < "$work/cases"
exit $failed
