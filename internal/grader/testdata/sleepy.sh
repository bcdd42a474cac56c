#!/bin/sh
# sleepy.sh PIDFILE: a code grader that hangs, leaving a child that would outlive it; the
# child's pid goes to PIDFILE so the test can check the timeout killed it too.
cat >/dev/null
sleep 60 &
echo $! >"$1"
sleep 60
