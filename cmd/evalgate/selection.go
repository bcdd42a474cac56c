package main

import (
	"github.com/spf13/pflag"

	"github.com/evalgate/evalgate/internal/pipeline"
)

// selection are the flags run and validate share: where the repository is, which targets
// file, target and judge apply, and which tests are selected.
type selection struct {
	root, targets, target, judge string
	// filter picks tests: AgentV's --test-id, --tag and --exclude-tag.
	filter pipeline.Filter
	// allowEnv are the variables ${{ VAR }} may read besides the built-ins and targets.yaml's
	// credential fields (the action's env_allow).
	allowEnv []string
}

func (s *selection) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&s.filter.TestIDs, "test-id", nil, "run only tests whose id matches this glob (repeatable; any may match)")
	fs.StringArrayVar(&s.filter.Tags, "tag", nil, "run only eval files with this tag (repeatable; all must be present)")
	fs.StringArrayVar(&s.filter.ExcludeTags, "exclude-tag", nil, "skip eval files with this tag (repeatable; any excludes)")
	fs.StringVar(&s.target, "target", "", "run every test against this target (overrides execution.target)")
	fs.StringVar(&s.judge, "judge", "", "grade with this judge target (overrides grader_target and a grader's target)")
	fs.StringVar(&s.targets, "targets", "", "targets.yaml to use (default: found walking up from each eval file)")
	fs.StringVar(&s.root, "root", "", "repository root (default: the git work tree of the first path)")
	fs.StringSliceVar(&s.allowEnv, "allow-env", nil, "let ${{ NAME }} read this environment variable (repeatable or comma-separated; its value is scrubbed from every output)")
}

func (s *selection) check() error {
	if err := pipeline.CheckEnvNames(s.allowEnv); err != nil {
		return usageErr("--allow-env: %w", err)
	}
	if err := s.filter.Check(); err != nil {
		return usageErr("%w", err)
	}
	return nil
}
