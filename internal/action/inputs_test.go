package action

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalgate/evalgate/internal/gate"
)

func TestParseMaxTrials(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		trials, max string
		want        int
		err         string
	}{
		{"", "10", 10, ""},
		{"3", "3", 3, ""},
		{"", "", 0, ""},
		{"5", "3", 0, "input max_trials (3) must not be below trials (5)"},
		{"", "101", 0, "input max_trials must be a number from 0 to 100"},
		{"", "-1", 0, "input max_trials must be a number"},
	} {
		in, err := parseInputs(func(k string) string { return map[string]string{"trials": tc.trials, "max_trials": tc.max}[k] })
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) || (err == nil && in.MaxTrials != tc.want) {
			t.Errorf("trials %q max_trials %q: %+v, %v; want %d, %q", tc.trials, tc.max, in.MaxTrials, err, tc.want, tc.err)
		}
	}
}

func TestParseInputs(t *testing.T) {
	t.Parallel()
	in, err := parseInputs(func(k string) string {
		return map[string]string{"suites": "evals/a/**\nevals/b/*.eval.yaml, extra.yaml", "workers": "8", "fail_on": "borderline",
			"comment": "on_failure", "allow_fork_reruns": "true", "allow_fork_code": "1", "fail_on_regression": "true", "budget_usd": "2.5", "judge_samples": "3", "baseline": " auto ", "trials": "5", "max_trials": "10"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"evals/a/**", "evals/b/*.eval.yaml", "extra.yaml"}, in.Suites); diff != "" {
		t.Errorf("suites (-want +got):\n%s", diff)
	}
	if in.Workers != 8 ||
		in.FailOn != gate.FailOnBorderline || in.Comment != "on_failure" || !in.AllowForkReruns || !in.AllowForkCode || !in.FailOnRegression ||
		in.BudgetUSD != 2.5 || in.JudgeSamples != 3 || in.Baseline != "auto" || in.Trials != 5 || in.MaxTrials != 10 {
		t.Fatalf("%+v", in)
	}
	if in.CheckName != "evalgate" || in.Command != "/evalgate" || in.ReportDir != ".evalgate/report" || in.BaselineArtifact != "evalgate-report" {
		t.Fatalf("defaults: %+v", in)
	}
	for key, bad := range map[string]string{"workers": "0", "fail_on": "sometimes", "comment": "loudly", "allow_fork_reruns": "maybe", "allow_fork_code": "yes please", "fail_on_regression": "2",
		"budget_usd": "-1", "judge_samples": "many", "trials": "101", "max_trials": "2.5"} {
		_, err := parseInputs(func(k string) string {
			if k == key {
				return bad
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s=%q: err = %v", key, bad, err)
		}
	}
}

func TestEnvAllowInput(t *testing.T) {
	t.Parallel()
	in, err := parseInputs(func(k string) string {
		return map[string]string{"env_allow": "DATABASE_URL, SLACK_WEBHOOK_URL\n_X1\n"}[k]
	})
	if err != nil || strings.Join(in.EnvAllow, " ") != "DATABASE_URL SLACK_WEBHOOK_URL _X1" {
		t.Fatalf("%q %v", in.EnvAllow, err)
	}
	for _, bad := range []string{"1ABC", "A-B", "${{ X }}"} {
		if _, err := parseInputs(func(k string) string { return map[string]string{"env_allow": bad}[k] }); err == nil || !strings.Contains(err.Error(), "env_allow") {
			t.Errorf("env_allow %q: err = %v", bad, err)
		}
	}
}
