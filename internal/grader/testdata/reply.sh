#!/bin/sh
# reply.sh STDOUT [EXIT [STDERR]]: a code grader that prints STDOUT, writes STDERR to stderr
# and exits with EXIT, ignoring its input.
cat >/dev/null
printf '%s\n' "$1"
if [ -n "$3" ]; then printf '%s\n' "$3" >&2; fi
exit "${2:-0}"
