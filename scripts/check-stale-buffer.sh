#!/bin/bash
# Reliability check (issue 19 point 1): an editor open across a run saves its older copy.
# One trial: run 1 over N1 generated transcripts (builtin extractor, temporary HOME), keep
# memory.md as the "editor buffer", run 2 over N2 more, save the buffer plus one typed line,
# run 3. Prints: bullets of run 2 missing after run 3, bullets after run 2, typed line kept.
# Usage: scripts/check-stale-buffer.sh BINARY N1 N2
# 15 trials as in the closing note:
#   for t in $(seq 1 15); do scripts/check-stale-buffer.sh target/debug/memloop $((20+t)) $((1+t%5)); done
B=$(realpath "$1"); N1=$2; N2=$3; T=$(mktemp -d); cd $T; mkdir -p home vaults/v1/00_Inbox/chats; echo "# v1" > vaults/v1/CLAUDE.md
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config XDG_STATE_HOME=$T/home/.local/state XDG_DATA_HOME=$T/home/.local/share VAULTS_DIR=$T/vaults MEMLOOP_PROVIDER=builtin
words=(tea coffee chess cello hiking Rust Go Vim Emacs Arch Debian bees sailing pottery running jazz Berlin Lisbon kayaking climbing)
mk(){ i=$1; printf -- "---\ndate: 2025-06-%02d\n---\n\n## [09:00] User\n\nI prefer ${words[$((i%20))]} over everything else, number $i. I'm a fan of tool$i.\n" $((i%28+1)) > vaults/v1/00_Inbox/chats/2025-06-$(printf %02d $((i%28+1)))-t$i.md; }
for i in $(seq 1 $N1); do mk $i; done; touch -d '2 days ago' vaults/v1/00_Inbox/chats/*.md; $B extract -q
M=home/.claude/rules/memory.md; cp $M buf.md
for i in $(seq $((N1+1)) $((N1+N2))); do mk $i; done; touch -d '2 days ago' vaults/v1/00_Inbox/chats/*.md; $B extract -q
grep '^- ' $M | sed 's/ (as of [0-9-]*)$//' | sort > after2.txt
cp buf.md $M; echo "- Drinks oat milk." >> $M; $B extract -q >/dev/null 2>&1
grep '^- ' $M | sed 's/ (as of [0-9-]*)$//' | sort > after3.txt
lost=$(comm -23 after2.txt after3.txt | wc -l); total=$(wc -l < after2.txt); oat=$(grep -c "oat milk" after3.txt)
echo "$lost $total $oat"; rm -rf $T
