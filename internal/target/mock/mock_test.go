package mock

import (
	"context"
	"testing"
	"time"

	"github.com/evalgate/evalgate/internal/suite"
	"github.com/evalgate/evalgate/internal/target"
)

func TestMock(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	req := &target.Request{Suite: &suite.Suite{}, Test: &suite.Test{ID: "t"}}
	for _, tc := range []struct {
		settings map[string]any
		want     string
		wantErr  bool
	}{
		{map[string]any{}, defaultResponse, false},
		{map[string]any{"response": "hello"}, "hello", false},
		{map[string]any{"response": map[string]any{"a": 1}}, `{"a":1}`, false},
		{map[string]any{"error": "boom"}, "", true},
	} {
		tg, err := New(&suite.TargetConfig{Name: "m", Settings: tc.settings})
		if err != nil {
			t.Fatal(err)
		}
		out, err := tg.Run(ctx, req)
		if (err != nil) != tc.wantErr || (err == nil && out.Answer != tc.want) {
			t.Errorf("%v: out %+v err %v", tc.settings, out, err)
		}
	}
	tg, _ := New(&suite.TargetConfig{Name: "slow", Settings: map[string]any{"delay_ms": 5000}})
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := tg.Run(cctx, req); err == nil {
		t.Fatal("delay ignored the context")
	}
}
