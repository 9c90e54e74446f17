#!/usr/bin/env bash
# Shows against the real `claude` CLI that `memloop mcp` works as Claude Code uses it:
#
#   scripts/check-claude-mcp.sh [path/to/claude] [path/to/memloop]
#       (defaults: the `claude` on PATH, target/debug/memloop)
#
# In a throwaway HOME: `memloop memory remember` keeps a fact with a unique token, `claude mcp
# add --scope user memloop -- memloop mcp` registers the server, and `claude -p` runs against
# a loopback mock of the Anthropic Messages API (below) that logs every request. The mock
# answers the first request that offers memloop's search tool with a `tool_use` of it, and
# everything else with text. The check reads the log: memloop's tools were offered to the
# model (`mcp__memloop__search`, `mcp__memloop__remember`), and the next request carries a
# `tool_result` holding the fact. It runs in a network namespace with only loopback
# (unshare -rn) when it can; not part of `cargo test`. Needs python3.
# Last run against Claude Code 2.1.197 (npm @anthropic-ai/claude-code).
set -u
cd "$(dirname "$0")/.."
if [ "${1:-}" != --inside ]; then
  claude=${1:-$(command -v claude)} || { echo "no claude on PATH" >&2; exit 2; }
  memloop=$(readlink -f "${2:-target/debug/memloop}")
  [ -x "$memloop" ] || { echo "no memloop binary at $memloop: cargo build" >&2; exit 2; }
  claude=$(readlink -f "$claude")
  if unshare -rn true 2>/dev/null; then
    exec unshare -rn "$0" --inside "$claude" "$memloop" yes
  fi
  echo "note: no network namespace (unshare -rn); the mock is on loopback, other traffic is not blocked" >&2
  exec "$0" --inside "$claude" "$memloop" no
fi
claude=$2 memloop=$3
[ "$4" = yes ] && { ip link set lo up 2>/dev/null || /sbin/ip link set lo up; }
work=$(mktemp -d "${TMPDIR:-/tmp}/memloop-mcp-XXXXXX")
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT
echo "claude $("$claude" --version 2>/dev/null), $("$memloop" --version)"
h=$work/home
mkdir -p "$h/vaults"
echo '{"hasCompletedOnboarding": true}' > "$h/.claude.json"
t=MCPTOK-$$-$RANDOM
run() { env -i HOME="$h" PATH=/usr/bin:/bin TMPDIR="${TMPDIR:-/tmp}" VAULTS_DIR="$h/vaults" "$@"; }
run "$memloop" memory remember "Uses Neovim $t as their main editor." || exit 2
run "$claude" mcp add --scope user memloop -- "$memloop" mcp > "$work/add.out" 2>&1 \
  || { cat "$work/add.out"; exit 2; }
echo "--- claude mcp add: $(head -c 200 "$work/add.out")"

cat > "$work/mock.py" <<'PY'
import http.server, json, sys
port, log = int(sys.argv[1]), sys.argv[2]
asked = False
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        global asked
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        with open(log, "a") as f:
            f.write(json.dumps({"path": self.path, "body": body.decode("utf-8", "replace")}) + "\n")
        req = json.loads(body or b"{}")
        tools = [t.get("name") for t in req.get("tools") or []]
        if not asked and "mcp__memloop__search" in tools:
            asked = True
            block = {"type": "tool_use", "id": "toolu_memloop_1", "name": "mcp__memloop__search", "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps({"query": "what editor do I use"})}
            stop = "tool_use"
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": "done"}
            stop = "end_turn"
        usage = {"input_tokens": 10, "output_tokens": 1}
        msg = {"id": "msg_1", "type": "message", "role": "assistant", "model": req.get("model"),
               "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}
        events = [("message_start", {"type": "message_start", "message": msg}),
                  ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
                  ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
                  ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                  ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5}}),
                  ("message_stop", {"type": "message_stop"})]
        if req.get("stream"):
            data = "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()
            ctype = "text/event-stream"
        else:
            if block["type"] == "tool_use":
                block = dict(block, input=json.loads(delta["partial_json"]))
            else:
                block = {"type": "text", "text": "done"}
            data = json.dumps(dict(msg, content=[block], stop_reason=stop)).encode()
            ctype = "application/json"
        self.send_response(200)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def do_GET(self):
        self.send_response(404); self.send_header("content-length", "0"); self.end_headers()
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
PY
port=$(( 20000 + RANDOM % 20000 ))
log=$work/requests.jsonl
python3 "$work/mock.py" "$port" "$log" & pids+=($!)
sleep 0.5
(cd "$h" && run ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=dummy \
  DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
  timeout 120 "$claude" -p "What editor do I use?" --allowedTools mcp__memloop__search \
  > "$work/claude.out" 2> "$work/claude.err")
echo "--- claude -p: exit $?, $(wc -l < "$log" 2>/dev/null || echo 0) request(s), answered: $(head -c 200 "$work/claude.out")"
[ -s "$log" ] || { echo "FAIL  no request reached the mock"; cat "$work/claude.err"; exit 2; }

python3 - "$log" "$t" <<'PY'
import json, sys
log, token = sys.argv[1:]
reqs = [json.loads(json.loads(l)["body"]) for l in open(log) if json.loads(l)["path"].startswith("/v1/messages")]
failed = 0
def check(ok, what):
    global failed
    print(("ok    " if ok else "FAIL  ") + what)
    failed |= not ok
offered = [r for r in reqs if any(t.get("name") == "mcp__memloop__search" for t in r.get("tools") or [])]
check(bool(offered), "memloop's search tool is offered to the model")
if offered:
    tools = {t["name"]: t for t in offered[0]["tools"] if t["name"].startswith("mcp__memloop__")}
    check(sorted(tools) == ["mcp__memloop__remember", "mcp__memloop__search"], f"memloop's tools: {sorted(tools)}")
    print("      search's description: " + tools.get("mcp__memloop__search", {}).get("description", "")[:300])
results = []
for r in reqs:
    for m in r.get("messages", []):
        for b in m["content"] if isinstance(m["content"], list) else []:
            if b.get("type") == "tool_result" and b.get("tool_use_id") == "toolu_memloop_1":
                results.append(b)
check(bool(results), "the tool_use of search comes back as a tool_result")
text = json.dumps(results[0]["content"]) if results else ""
check(token in text, "the tool_result holds the fact")
print("      tool_result: " + text[:400])
sys.exit(failed)
PY
