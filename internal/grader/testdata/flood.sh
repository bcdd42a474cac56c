#!/bin/sh
# flood.sh: a code grader that writes more than 1 MiB to stdout.
cat >/dev/null
head -c 1200000 /dev/zero | tr '\0' 'a'
