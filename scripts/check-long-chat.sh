#!/bin/bash
# Cost check (issue 19 point 4): a chat longer than [llm] max_transcript_tokens, one turn
# appended between runs. Generates a Memory Loop transcript of N exchanges (temporary HOME),
# runs `extract` against scripts/mock-messages.py (answering no facts), appends one turn, and
# runs again, RUNS runs in all. Prints per run: requests, bytes of request bodies, and how
# many requests carried the chat's first turn and the turns appended between runs.
# Usage: scripts/check-long-chat.sh BINARY [N] [RUNS]   (N defaults to 100000, RUNS to 3)
B=$(realpath "$1"); N=${2:-100000}; RUNS=${3:-3}; HERE=$(dirname "$(realpath "$0")")
T=$(mktemp -d); cd $T; mkdir -p home vaults/v1/00_Inbox/chats; echo "# v1" > vaults/v1/CLAUDE.md
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_STATE_HOME=$T/home/.local/state XDG_DATA_HOME=$T/home/.local/share VAULTS_DIR=$T/vaults
PORT=$((20000 + RANDOM % 20000))
python3 "$HERE/mock-messages.py" $PORT $T/log ok '{"facts": []}' & MOCK=$!
trap 'kill $MOCK 2>/dev/null; rm -rf $T' EXIT
export MEMLOOP_PROVIDER=anthropic ANTHROPIC_API_KEY=sk-ant-test ANTHROPIC_BASE_URL=http://127.0.0.1:$PORT
F=vaults/v1/00_Inbox/chats/2025-06-01-long.md
python3 - "$F" "$N" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    f.write("---\ndate: 2025-06-01\n---\n\n")
    for i in range(n):
        f.write(f"## [09:00] User\n\nQuestion {i} about the garden and the weather today.\n\n"
                f"## [09:00] Assistant\n\nAnswer {i}: water the beds in the morning.\n\n")
PY
sleep 0.5
for run in $(seq 1 $RUNS); do
  touch -d '2 hours ago' $F; : > $T/log
  $B extract -q >/dev/null 2>$T/err || { echo "run $run failed:"; cat $T/err; }
  reqs=$(grep -c . $T/log); bytes=$(python3 -c "import json,sys; print(sum(len(json.loads(l)['body']) for l in open(sys.argv[1])))" $T/log)
  new=$(grep -c "appended turn number" $T/log); first=$(grep -c "Question 0 about" $T/log)
  echo "run $run: $reqs requests, $bytes bytes sent; first turn sent: $first; appended turns sent: $new"
  printf "## [10:00] User\n\nappended turn number $run: I repotted the basil.\n\n" >> $F
done
