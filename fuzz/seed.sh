#!/bin/sh
# Fills fuzz/corpus/<target>/ from the repository's fixtures (the corpora themselves are
# not committed). Run from anywhere; idempotent.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
corpus="$root/fuzz/corpus"
fixtures="$root/fixtures"
mkdir -p "$corpus/transcript" "$corpus/frontmatter" "$corpus/fence" "$corpus/contract" "$corpus/responses" "$corpus/session"

n=0
for f in $(find "$fixtures/vaults" "$fixtures/corpus" -name '*.md' ! -name SOURCE.md ! -name README.md); do
    n=$((n + 1))
    # transcript: one budget byte (200 tokens), then the file.
    { printf '\310'; cat "$f"; } > "$corpus/transcript/fixture-$n"
    # frontmatter: what sits between the first two `---` lines, when there is one.
    awk 'NR == 1 && $0 != "---" { exit } NR > 1 && ($0 == "---" || $0 == "...") { exit } NR > 1 { print }' "$f" \
        > "$corpus/frontmatter/fixture-$n"
    [ -s "$corpus/frontmatter/fixture-$n" ] || rm -f "$corpus/frontmatter/fixture-$n"
done

# fence: mode byte 1 (a block), the document, 0xFF, a block rendered like memloop's.
n=0
for f in $(find "$fixtures/vaults" -name CLAUDE.md) "$fixtures/memory-loop/memory.md"; do
    n=$((n + 1))
    { printf '\001'; cat "$f"; printf '\377## Memory Loop Insights\n\n- Uses cargo nextest.\n'; } \
        > "$corpus/fence/fixture-$n"
    { printf '\000'; cat "$f"; } > "$corpus/fence/none-$n"
done

# contract: the model's answer text, as the providers hand it over.
for f in "$fixtures"/anthropic/*.json "$fixtures"/openai/*.json; do
    cp "$f" "$corpus/contract/$(basename "$(dirname "$f")")-$(basename "$f")"
done
printf '{"facts": [{"category": "Preferences", "text": "Prefers direct answers.", "scope": "global", "evidence": "straight answers"}]}' \
    > "$corpus/contract/facts.json"
printf 'Here you go:\n```json\n[{"category": "Goals", "text": "Ships weekly.", "scope": "vault"}]\n```\n' \
    > "$corpus/contract/fenced.md"

# responses: pick byte 0 Anthropic, 1 OpenAI, 2/3 the Claude CLI, then the body.
for f in "$fixtures"/anthropic/*.json; do
    { printf '\000'; cat "$f"; } > "$corpus/responses/anthropic-$(basename "$f")"
done
for f in "$fixtures"/openai/*.json; do
    { printf '\001'; cat "$f"; } > "$corpus/responses/openai-$(basename "$f")"
done
printf '\002{"type":"result","subtype":"success","is_error":false,"result":"{\\"facts\\": [{\\"category\\": \\"Goals\\", \\"text\\": \\"Ships weekly.\\", \\"scope\\": \\"global\\"}]}","usage":{"input_tokens":10,"output_tokens":5}}' \
    > "$corpus/responses/claude-cli-success.json"
printf '\003{"type":"result","subtype":"error","is_error":true,"result":"API Error: 429 rate limited"}' \
    > "$corpus/responses/claude-cli-error.json"

# session: two bytes for `from` (0, then half way), then a Claude Code session file.
n=0
for f in $(find "$fixtures/claude-code" -name '*.jsonl'); do
    n=$((n + 1))
    { printf '\000\000'; cat "$f"; } > "$corpus/session/fixture-$n"
    { printf '\377\177'; cat "$f"; } > "$corpus/session/half-$n"
done
echo "seeded $corpus"
