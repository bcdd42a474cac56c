package resolve

import (
	"testing"

	"github.com/evalgate/evalgate/internal/llm/provider"
	"github.com/evalgate/evalgate/internal/suite"
)

func TestTarget(t *testing.T) {
	t.Parallel()
	testPos := suite.Pos{File: "evals/a.eval.yaml", Line: 9, Col: 5}
	suitePos := suite.Pos{File: "evals/a.eval.yaml", Line: 3, Col: 11}
	matrixPos := suite.Pos{File: "evals/a.eval.yaml", Line: 5, Col: 7}
	matrix := []*suite.MatrixTarget{{Name: "fast", UseTarget: "gpt", Pos: matrixPos}}
	tests := []struct {
		name  string
		flag  string
		suite suite.Suite
		test  suite.Test
		want  Ref
	}{
		{"flag wins over everything", "cli-agent",
			suite.Suite{Path: "evals/a.eval.yaml", Target: "s", TargetPos: suitePos, Matrix: matrix},
			suite.Test{ID: "t1", Target: "fast", Pos: testPos},
			Ref{Name: "cli-agent", What: "--target"}},
		{"matrix entry over the test's own target", "",
			suite.Suite{Path: "evals/a.eval.yaml", Target: "s", Matrix: matrix},
			suite.Test{ID: "t1", Target: "fast", Pos: testPos},
			Ref{Name: "fast", What: "execution.targets entry", Pos: matrixPos, Alias: "gpt"}},
		{"test target over suite target", "",
			suite.Suite{Path: "evals/a.eval.yaml", Target: "s", TargetPos: suitePos},
			suite.Test{ID: "t1", Target: "mine", Pos: testPos},
			Ref{Name: "mine", What: "test t1: execution.target", Pos: testPos}},
		{"suite target", "",
			suite.Suite{Path: "evals/a.eval.yaml", Target: "s", TargetPos: suitePos},
			suite.Test{ID: "t1"},
			Ref{Name: "s", What: "execution.target", Pos: suitePos}},
		{"suite target without a position points at the file's start", "",
			suite.Suite{Path: "evals/a.eval.yaml", Target: "s"},
			suite.Test{ID: "t1"},
			Ref{Name: "s", What: "execution.target", Pos: suite.Pos{File: "evals/a.eval.yaml", Line: 1, Col: 1}}},
		{"suite target named default is the fallback", "",
			suite.Suite{Path: "evals/a.eval.yaml", Target: "default", TargetPos: suitePos},
			suite.Test{ID: "t1"},
			Ref{Name: "default", What: defaultTarget, Pos: suite.Pos{File: "evals/a.eval.yaml"}}},
		{"nothing named", "",
			suite.Suite{Path: "evals/a.eval.yaml"},
			suite.Test{ID: "t1"},
			Ref{Name: "default", What: defaultTarget, Pos: suite.Pos{File: "evals/a.eval.yaml"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := targetRef(tt.flag, &tt.suite, &tt.test); got != tt.want {
				t.Errorf("targetRef() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	t.Parallel()
	graderPos := suite.Pos{File: "evals/a.eval.yaml", Line: 12, Col: 9}
	targetPos := suite.Pos{File: ".agentv/targets.yaml", Line: 4, Col: 5}
	tests := []struct {
		name           string
		flag, override string
		target         suite.TargetConfig
		want           Ref
		wantOK         bool
	}{
		{"flag wins over the grader's target", "strict", "lenient", suite.TargetConfig{Name: "gpt", Provider: "openai"},
			Ref{Name: "strict", What: "--judge"}, true},
		{"grader's target over the target's grader_target", "", "lenient", suite.TargetConfig{Name: "agent", Provider: "cli", GraderTarget: "gpt"},
			Ref{Name: "lenient", What: "grader target", Pos: graderPos}, true},
		{"grader_target over the target itself", "", "", suite.TargetConfig{Name: "gpt", Provider: "openai", GraderTarget: "claude"},
			Ref{Name: "claude", What: "target gpt: grader_target", Pos: targetPos}, true},
		{"a model target judges itself", "", "", suite.TargetConfig{Name: "claude", Provider: "anthropic"},
			Ref{Name: "claude", What: "target", Pos: targetPos}, true},
		{"a mock target judges itself", "", "", suite.TargetConfig{Name: "m", Provider: "mock"},
			Ref{Name: "m", What: "target", Pos: targetPos}, true},
		{"a cli target has no judge", "", "", suite.TargetConfig{Name: "agent", Provider: "cli"}, Ref{}, false},
		{"a replay target has no judge", "", "", suite.TargetConfig{Name: "rec", Provider: "replay"}, Ref{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := judgeOverride(tt.flag, tt.override, graderPos)
			if !ok {
				got, ok = judgeOfTarget(&tt.target, targetPos)
			}
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("judge = %+v, %v; want %+v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestCanGrade(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{"openai": true, "azure": true, "anthropic": true, "mock": true, "cli": false, "replay": false, "gemini": false, "": false} {
		if got := canGrade(name); got != want {
			t.Errorf("canGrade(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestBuildRefusesUnknownProviders(t *testing.T) {
	t.Parallel()
	cfg := &suite.TargetConfig{Name: "g", Provider: "gemini"}
	if _, err := newTarget(cfg, provider.Options{}); err == nil || err.Error() != `target g: provider "gemini" is not supported as a target` {
		t.Errorf("newTarget: err = %v", err)
	}
	agent := &suite.TargetConfig{Name: "agent", Provider: "cli"}
	if _, err := newJudge(agent, provider.Options{}, 0); err == nil || err.Error() != `judge agent: provider "cli" cannot grade in this version` {
		t.Errorf("newJudge: err = %v", err)
	}
}

func TestBuildVendorAndMock(t *testing.T) {
	t.Parallel()
	gpt := &suite.TargetConfig{Name: "gpt", Provider: "openai", Settings: map[string]any{"model": "gpt-4o-mini", "api_key": "k", "temperature": 0}}
	j, err := newJudge(gpt, provider.Options{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if j.Name != "gpt" || j.Samples != 3 || j.Temperature == nil || *j.Temperature != 0 {
		t.Errorf("judge = %+v", j)
	}
	if tg, err := newTarget(gpt, provider.Options{}); err != nil || tg == nil {
		t.Errorf("newTarget(openai) = %v, %v", tg, err)
	}
	noKey := &suite.TargetConfig{Name: "gpt", Provider: "openai", Settings: map[string]any{"model": "m"}}
	if _, err := newTarget(noKey, provider.Options{Getenv: func(string) string { return "" }}); err == nil {
		t.Error("newTarget without an API key: want an error")
	}
}
