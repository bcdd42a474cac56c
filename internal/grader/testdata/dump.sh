#!/bin/sh
# dump.sh: a code grader that passes and echoes what it received as details: its stdin, its
# working directory, AGENTV_WORKSPACE_PATH and the size of the file named by output_path.
in=$(cat)
path=$(printf '%s\n' "$in" | sed -n 's/^  "output_path": "\(.*\)",$/\1/p')
size=0
if [ -n "$path" ]; then size=$(wc -c <"$path"); fi
printf '{"score": 1, "details": {"stdin": %s, "cwd": "%s", "workspace_env": "%s", "output_file_bytes": %d}}\n' \
	"$in" "$(pwd)" "$AGENTV_WORKSPACE_PATH" "$size"
