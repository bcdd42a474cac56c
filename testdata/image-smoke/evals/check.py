"""A code-grader: passes when the agent's answer names a Node version (AgentV's stdin/stdout contract)."""
import json
import sys

data = json.load(sys.stdin)
answer = data.get("output") or ""
if isinstance(answer, list):
    answer = " ".join(str(m.get("content", "")) for m in answer if isinstance(m, dict))
ok = "node v" in str(answer)
print(json.dumps({"score": 1.0 if ok else 0.0, "assertions": [{"text": "answer names a Node version", "passed": ok}]}))
