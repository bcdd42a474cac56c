// Package action is evalgate as a GitHub Action: it reads the event, decides what to run
// (the suites a pull request touches, or a trusted rerun command), runs them, and publishes
// one sticky comment, a check run on the head commit, the step summary and the outputs.
package action

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/baseline"
	"github.com/evalgate/evalgate/internal/event"
	"github.com/evalgate/evalgate/internal/gate"
	"github.com/evalgate/evalgate/internal/pipeline"
	"github.com/evalgate/evalgate/internal/shard"
	"github.com/evalgate/evalgate/internal/suite"
)

// inputs are the action's inputs (action.yml), read from INPUT_* variables.
type inputs struct {
	Token       string
	Suites      []string // globs; empty = AgentV's patterns
	RunAllPaths []string
	Targets     string
	Target      string
	Judge       string
	Workers     int
	FailOn      gate.FailOn
	Comment     string // always, on_failure, never
	CheckName   string
	Command     string
	// AllowForkCode lets code from a fork run with the job's secrets (pull_request_target,
	// workflow_run and comment reruns): a maintainer's opt-in, see decide.
	AllowForkCode bool
	// AllowForkReruns is the older opt-in, for comment reruns only.
	AllowForkReruns bool
	CacheDir        string
	ReportDir       string
	// Baseline is a results.json of a base run (e.g. a downloaded artifact) to compare with,
	// or "auto": on a pull request, the newest BaselineArtifact of a run on its base.
	Baseline         string
	BaselineArtifact string
	FailOnRegression bool
	// RegressionAlpha is the family-wise level of the baseline comparison (0 = 0.05).
	RegressionAlpha float64
	// BudgetUSD stops starting tests once the run has spent this much (0 = no limit).
	BudgetUSD float64
	// JudgeSamples asks the judge k times per grader (0 = each grader's own samples:).
	JudgeSamples int
	// Trials runs each test this many times (0 = each suite's execution.trials).
	Trials int
	// MaxTrials bounds adaptive trials (0 = each suite's execution.trials.max): above the
	// count, undecided tests run again up to this many times.
	MaxTrials int
	// Shard, when set, runs one shard of a matrix and writes a partial result (input shard);
	// ShardDurations balances the shards by an earlier run's durations.
	Shard          *shard.Spec
	ShardDurations string
	// Merge is the directory of the shards' artifacts a merge step publishes as one run.
	Merge string
	// EnvAllow are the variables ${{ VAR }} may read besides the built-ins and targets.yaml's
	// credential fields (input env_allow); their values are scrubbed like credentials.
	EnvAllow []string
}

// parseInputs reads and checks the inputs; get is go-githubactions' GetInput.
func parseInputs(get func(string) string) (inputs, error) {
	in := inputs{
		Token:       get("github_token"),
		Suites:      list(get("suites")),
		RunAllPaths: list(get("run_all_paths")),
		Targets:     get("targets"),
		Target:      get("target"),
		Judge:       get("judge"),
		Workers:     4,
		Comment:     or(get("comment"), "always"),
		CheckName:   or(get("check_name"), "evalgate"),
		Command:     or(get("command"), event.DefaultCommand),
		CacheDir:    get("cache_dir"), // "" = the user's cache directory, outside the checkout
		ReportDir:   or(get("report_dir"), ".evalgate/report"),
	}
	var err error
	if w := get("workers"); w != "" {
		if in.Workers, err = strconv.Atoi(w); err != nil || in.Workers < 1 {
			return in, fmt.Errorf("input workers must be a positive number, not %q", w)
		}
	}
	if in.FailOn, err = gate.ParseFailOn(get("fail_on")); err != nil {
		return in, fmt.Errorf("input fail_on: %w", err)
	}
	switch in.Comment {
	case "always", "on_failure", "never":
	default:
		return in, fmt.Errorf("input comment must be always, on_failure or never, not %q", in.Comment)
	}
	if v := get("budget_usd"); v != "" {
		if in.BudgetUSD, err = strconv.ParseFloat(v, 64); err != nil || in.BudgetUSD < 0 {
			return in, fmt.Errorf("input budget_usd must be a non-negative number, not %q", v)
		}
	}
	if v := get("judge_samples"); v != "" {
		if in.JudgeSamples, err = strconv.Atoi(v); err != nil || in.JudgeSamples < 0 || in.JudgeSamples > 20 {
			return in, fmt.Errorf("input judge_samples must be a number from 0 to 20, not %q", v)
		}
	}
	if v := get("trials"); v != "" {
		if in.Trials, err = strconv.Atoi(v); err != nil || in.Trials < 0 || in.Trials > suite.MaxTrials {
			return in, fmt.Errorf("input trials must be a number from 0 to %d, not %q", suite.MaxTrials, v)
		}
	}
	if v := get("max_trials"); v != "" {
		if in.MaxTrials, err = strconv.Atoi(v); err != nil || in.MaxTrials < 0 || in.MaxTrials > suite.MaxTrials {
			return in, fmt.Errorf("input max_trials must be a number from 0 to %d, not %q", suite.MaxTrials, v)
		}
		if in.MaxTrials > 0 && in.Trials > in.MaxTrials {
			return in, fmt.Errorf("input max_trials (%d) must not be below trials (%d)", in.MaxTrials, in.Trials)
		}
	}
	if v := strings.TrimSpace(get("shard")); v != "" {
		spec, err := shard.ParseSpec(v)
		if err != nil {
			return in, fmt.Errorf("input shard: %w", err)
		}
		in.Shard = &spec
	}
	in.ShardDurations = strings.TrimSpace(get("shard_durations"))
	in.Merge = strings.TrimSpace(get("merge"))
	switch {
	case in.Shard != nil && in.Merge != "":
		return in, fmt.Errorf("inputs shard and merge exclude each other: the shards run in a matrix job, the merge in a job that needs it")
	case in.ShardDurations != "" && in.Shard == nil && in.Merge == "":
		return in, fmt.Errorf("input shard_durations needs shard (or merge, which re-plans the split with it)")
	}
	in.EnvAllow = list(get("env_allow"))
	if err := pipeline.CheckEnvNames(in.EnvAllow); err != nil {
		return in, fmt.Errorf("input env_allow: %w", err)
	}
	in.Baseline = strings.TrimSpace(get("baseline"))
	in.BaselineArtifact = or(strings.TrimSpace(get("baseline_artifact")), baseline.DefaultArtifact)
	if v := get("fail_on_regression"); v != "" {
		if in.FailOnRegression, err = strconv.ParseBool(v); err != nil {
			return in, fmt.Errorf("input fail_on_regression must be true or false, not %q", v)
		}
	}
	if v := strings.TrimSpace(get("regression_alpha")); v != "" {
		a, perr := strconv.ParseFloat(v, 64)
		if perr != nil || !(a > 0 && a < 1) {
			return in, fmt.Errorf("input regression_alpha must be a number between 0 and 1 (exclusive), not %q", v)
		}
		in.RegressionAlpha = a
	}
	for name, dst := range map[string]*bool{"allow_fork_code": &in.AllowForkCode, "allow_fork_reruns": &in.AllowForkReruns} {
		if v := get(name); v != "" {
			if *dst, err = strconv.ParseBool(v); err != nil {
				return in, fmt.Errorf("input %s must be true or false, not %q", name, v)
			}
		}
	}
	return in, nil
}

// list splits a multi-line or comma-separated input.
func list(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == ',' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
