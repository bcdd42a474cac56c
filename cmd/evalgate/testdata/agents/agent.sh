#!/bin/sh
# A scripted coding agent for evalgate's end-to-end tests (agent_e2e_test.go). It runs in the
# test's workspace (its cwd). $1 is the test id ({EVAL_ID}) and picks the behaviour; $2 is the
# AgentV output file ({OUTPUT_FILE}), absent for the target that reads the answer from stdout.
# $SCRATCH is a directory outside every workspace, for pid files and the write-outside case.
id=$1 out=$2

# edit is the work every mode starts with: a new file named after the test, and a line in the
# template's README.md, of which every test's workspace has its own copy.
edit() {
  printf 'hello from %s\n' "$id" > "$id.txt"
  printf 'edited by %s\n' "$id" >> README.md
}

# answer checks the work with a real tool call and writes AgentV's output JSON: the answer
# and the two tool calls the agent made.
answer() {
  lines=$(wc -l < README.md | tr -d ' ')
  cat > "$out" <<JSON
{"output": [{"role": "assistant", "content": "Created $id.txt and noted it in README.md.",
  "tool_calls": [
    {"tool": "Edit", "input": {"file_path": "$id.txt"}, "output": "ok"},
    {"tool": "Bash", "input": {"command": "wc -l README.md"}, "output": "$lines README.md"}]}],
 "token_usage": {"input": 100, "output": 20}}
JSON
}

case "$id" in
good-*) edit; answer ;;
exit-nonzero) edit; echo "agent crashed: out of cheese" >&2; exit 3 ;;
hang) edit; sleep 60 & echo $! > "$SCRATCH/hang.pid"; wait ;;
# 20 MB on stdout (the answer, for the stdout target) and on stderr: stands in for 1 GB.
flood) edit; head -c 20000000 /dev/zero | tr '\0' y; head -c 20000000 /dev/zero >&2 ;;
bad-json) edit; printf '{"output": [{"role": "assistant", "content": "half an ans' > "$out" ;;
rm-workspace) edit; answer; rm -rf "$PWD" ;;
# The child keeps the agent's stdout and stderr open and would sleep for five minutes.
linger) edit; sleep 300 & echo $! > "$SCRATCH/linger.pid"; answer ;;
write-outside) edit; echo "escaped from $id" > "$SCRATCH/outside.txt"; answer ;;
empty-answer) edit; echo '{"output": [{"role": "assistant", "content": ""}]}' > "$out" ;;
*) echo "agent.sh: unknown test id $id" >&2; exit 2 ;;
esac
