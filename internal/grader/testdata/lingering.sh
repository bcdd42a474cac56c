#!/bin/sh
# lingering.sh PIDFILE: a code grader that answers at once but leaves a child running with
# its output closed; the child's pid goes to PIDFILE.
cat >/dev/null
sleep 60 >/dev/null 2>&1 &
echo $! >"$1"
echo '{"score": 0.9}'
