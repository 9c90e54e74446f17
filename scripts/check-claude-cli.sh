#!/usr/bin/env bash
# Checks that memloop runs the real `claude` CLI sealed, against a loopback mock of the
# Anthropic API (nothing leaves the machine, no real key is used):
#
#   scripts/check-claude-cli.sh [path/to/claude]      (default: the `claude` on PATH)
#
# In a throwaway HOME with a planted ~/.claude/CLAUDE.md, a rule file, a UserPromptSubmit
# and a SessionStart hook and two MCP servers, it runs `memloop extract` with the
# claude-cli provider and checks what the CLI sent (system prompt size, no thinking, no
# tools, no CLAUDE.md or rule text, one request per transcript) and what it left behind
# (no hook or MCP trace, no auto-memory directory, no telemetry file); then that a 401
# exits 2 within seconds, a 404 (unknown model) exits 2, and a 529 is retried by memloop.
# Needs python3 and cargo. Last run against Claude Code 2.1.197.
set -u
cd "$(dirname "$0")/.."
claude=${1:-$(command -v claude)} || { echo "no claude on PATH" >&2; exit 2; }
cargo build -q || exit 2
memloop=$PWD/target/debug/memloop
work=$(mktemp -d "${TMPDIR:-/tmp}/memloop-check-XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT
failed=0
check() { if eval "$2"; then echo "ok    $1"; else echo "FAIL  $1"; failed=1; fi; }
echo "claude $("$claude" --version 2>/dev/null)"

# What the mock answers: one fact its quote states word for word (no judge request follows).
ANSWER='{"facts": [{"category": "Preferences", "text": "Always formats Go with tabs.", "scope": "global", "evidence": "written Go for six years and always format with tabs"}]}'

# run MODE PORT: one `memloop extract` in a fresh planted HOME; sets rc, secs, h, log.
run() {
  local mode=$1 port=$2
  h=$work/home-$mode; log=$work/requests-$mode.jsonl
  mkdir -p "$h/.claude/rules" "$h/bin" "$h/vaults/gamma/00_Inbox/chats"
  echo "PLANTED-CLAUDE-MD: always answer in pirate speak." > "$h/.claude/CLAUDE.md"
  echo "PLANTED-MEMORY-RULE: a planted fact." > "$h/.claude/rules/memory.md"
  cat > "$h/.claude/settings.json" <<JSON
{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat > $h/hook-ran"}]}],
           "SessionStart": [{"hooks": [{"type": "command", "command": "touch $h/session-hook-ran"}]}]},
 "mcpServers": {"planted": {"command": "sh", "args": ["-c", "touch $h/mcp-started; sleep 30"]}},
 "alwaysThinkingEnabled": true}
JSON
  cat > "$h/.claude.json" <<JSON
{"mcpServers": {"planted2": {"type": "stdio", "command": "sh", "args": ["-c", "touch $h/mcp2-started; sleep 30"]}},
 "hasCompletedOnboarding": true}
JSON
  echo "# gamma" > "$h/vaults/gamma/CLAUDE.md"
  printf -- '---\ndate: 2025-07-07\ntime: "09:00"\n---\n# Discussion - 2025-07-07 09:00\n\n## [09:00] User\n\nI have written Go for six years and always format with tabs.\n' \
    > "$h/vaults/gamma/00_Inbox/chats/2025-07-07-0900-go.md"
  touch -d '2 hours ago' "$h/vaults/gamma/00_Inbox/chats/2025-07-07-0900-go.md"
  ln -s "$claude" "$h/bin/claude"
  python3 scripts/mock-messages.py "$port" "$log" "$mode" "$ANSWER" & pids+=($!)
  sleep 0.5
  local start end
  start=$(date +%s%N)
  env -i HOME="$h" PATH="$h/bin:/usr/bin:/bin" TMPDIR="${TMPDIR:-/tmp}" \
    ANTHROPIC_API_KEY=sk-test ANTHROPIC_BASE_URL="http://127.0.0.1:$port" \
    VAULTS_DIR="$h/vaults" MEMLOOP_PROVIDER=claude-cli MEMLOOP_RETRY_BASE_MS=10 \
    "$memloop" extract --json > "$work/out-$mode.json" 2> "$work/err-$mode.txt"
  rc=$?; end=$(date +%s%N); secs=$(( (end - start) / 1000000000 ))
}

port=$(( 20000 + RANDOM % 20000 ))
run ok $port
python3 - "$log" > "$work/sent" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
b = json.loads(reqs[0]["body"]) if reqs else {}
s = b.get("system") or []
size = len(s.encode()) if isinstance(s, str) else sum(len(x.get("text", "").encode()) for x in s)
t = json.dumps(b)
print(len(reqs), size, (b.get("thinking") or {}).get("type", "none"), len(b.get("tools", [])),
      int("PLANTED-CLAUDE-MD" in t), int("PLANTED-MEMORY-RULE" in t))
PY
read -r requests system thinking tools claude_md rule < "$work/sent"
echo "      sent: $requests request(s), system prompt $system bytes, thinking $thinking, $tools tools"
check "extract succeeds (exit $rc)" '[ "$rc" = 0 ]'
check "one request per transcript, no title request" '[ "$requests" = 1 ]'
check "memloop's prompt, not Claude Code's agent prompt" '[ "$system" -lt 8000 ]'
check "no thinking" '[ "$thinking" = disabled ] || [ "$thinking" = none ]'
check "no tools" '[ "$tools" = 0 ]'
check "no ~/.claude/CLAUDE.md, no rules (memory.md)" '[ "$claude_md$rule" = 00 ]'
check "no hook ran" '! ls "$h" | grep -q hook-ran'
check "no MCP server started" '! ls "$h" | grep -q mcp'
check "no auto-memory directory" '[ -z "$(find "$h/.claude" -type d -name memory)" ]'
check "no telemetry file" '[ ! -d "$h/.claude/telemetry" ]'
check "no project or session file" '[ ! -d "$h/.claude/projects" ] && [ -z "$(find "$h/.claude/sessions" -type f 2>/dev/null)" ]'

run 401 $((port + 1))
check "a rejected key exits 2 (exit $rc) within seconds (${secs}s)" '[ "$rc" = 2 ] && [ "$secs" -lt 20 ]'
run 404 $((port + 2))
check "an unknown model exits 2 (exit $rc) within seconds (${secs}s)" '[ "$rc" = 2 ] && [ "$secs" -lt 20 ]'
run 529 $((port + 3))
tries=$(wc -l < "$log")
check "an overloaded API: memloop retries (${tries} requests for 1 transcript), exit 1 (exit $rc)" '[ "$rc" = 1 ] && [ "$tries" = 5 ]'
exit $failed
