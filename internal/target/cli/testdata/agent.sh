#!/bin/sh
# A scripted agent for tests: the prompt ($1) says how to behave, $2 is the output file.
prompt=$1 out=$2
case "$prompt" in
good)
  echo "print('hi')" > app.py
  cat > "$out" <<'JSON'
{"output": [{"role": "assistant", "content": "Created app.py",
  "tool_calls": [{"tool": "Write", "input": {"file_path": "app.py"}, "output": "ok", "duration_ms": 3}]}],
 "token_usage": {"input": 120, "output": 30}, "cost_usd": 0.002}
JSON
  ;;
plain) echo "just text" > "$out" ;;
exit3) echo "something broke" >&2; exit 3 ;;
hang) sleep 60 ;;
flood) head -c 100000000 /dev/zero | tr '\0' 'y'; echo ok > "$out" ;;
badjson) echo '{"output": [' > "$out" ;;
empty) : > "$out" ;;
linger)
  (sleep 300 & echo $! > "$PIDFILE"; wait) &
  echo "done" > "$out"
  ;;
rmws) rm -rf "$PWD"; echo "done" > "$out" ;;
*) echo "unknown mode" >&2; exit 2 ;;
esac
