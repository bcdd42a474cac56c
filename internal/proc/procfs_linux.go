package proc

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// child is one process whose parent is the supervisor.
type child struct {
	pid, pgid int
	zombie    bool
}

// children lists the processes whose parent is ppid, from /proc.
func children(ppid int) []child {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	want := []byte(strconv.Itoa(ppid))
	var out []child
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // it ended while we looked
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 3 || !bytes.Equal(f[1], want) {
			continue
		}
		head, _, _ := bytes.Cut(b, []byte(" "))
		pid, err1 := strconv.Atoi(string(head))
		pgid, err2 := strconv.Atoi(string(f[2]))
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, child{pid: pid, pgid: pgid, zombie: f[0][0] == 'Z' || f[0][0] == 'X'})
	}
	return out
}

// harden keeps processes of the same user — the commands evalgate starts — out of evalgate's
// memory and /proc/<pid>/environ, where the job's secrets are.
func harden() {
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
