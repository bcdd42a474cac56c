package proc

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"
)

func TestGroupLifecycle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		script    string
		timeout   time.Duration
		wantAlive bool
	}{
		{"exits cleanly", "true", time.Minute, false},
		{"finished children", "sh -c true & wait", time.Minute, false},
		{"leaves a child running", "sleep 30 >/dev/null 2>&1 &", time.Minute, true},
		{"ignores SIGTERM past the deadline", "trap '' TERM; sleep 30", 100 * time.Millisecond, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, "sh", "-c", tt.script)
			Group(cmd, 200*time.Millisecond)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			if ctx.Err() == nil {
				if err != nil {
					t.Fatalf("wait: %v", err)
				}
				if got := Alive(cmd); got != tt.wantAlive {
					t.Errorf("Alive = %v, want %v", got, tt.wantAlive)
				}
			} else if err == nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				t.Fatalf("stopped command: err %v, ctx %v", err, ctx.Err())
			}
			Kill(cmd)
			deadline := time.Now().Add(5 * time.Second)
			for Alive(cmd) {
				if time.Now().After(deadline) {
					t.Fatal("the group survived Kill")
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}
