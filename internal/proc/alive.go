package proc

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Alive reports whether any process of the group a started command leads is still running.
// On Linux it reads /proc and ignores zombies: when evalgate is PID 1 in a container, orphans
// that already exited stay zombies until reaped, and must not count as running. Elsewhere it
// asks kill(0).
func Alive(cmd *exec.Cmd) bool {
	if cmd.Process == nil {
		return false
	}
	pgid := cmd.Process.Pid
	if alive, ok := procGroupAlive(pgid); ok {
		return alive
	}
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	// A child exiting right now is not lingering: look again after a moment.
	time.Sleep(50 * time.Millisecond)
	return syscall.Kill(-pgid, 0) == nil
}

// procGroupAlive scans /proc/*/stat for a live (non-zombie) member of pgid; ok is false when
// /proc cannot be read.
func procGroupAlive(pgid int) (alive, ok bool) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return false, false
	}
	want := strconv.Itoa(pgid)
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the process ended while we looked
		}
		// Fields after the parenthesised command name: state ppid pgrp …
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) >= 3 && string(f[2]) == want && string(f[0]) != "Z" && string(f[0]) != "X" {
			return true, true
		}
	}
	return false, true
}
