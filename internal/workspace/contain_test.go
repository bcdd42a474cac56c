package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// containTemplate is a small project with ignore rules at the top and in a subdirectory.
func containTemplate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"a.txt":          "one\n",
		"README.md":      "# project\n",
		".gitignore":     "*.log\nbuild/\n",
		"sub/.gitignore": "tmp*\n",
		"sub/keep.txt":   "kept\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestAgentCannotSteerTheDiff plays an agent that turns the workspace's own git repository,
// attributes and ignore files against evalgate. $EVIL is a program that touches $MARK (and
// passes its input through, as a filter or textconv would): evalgate must never run it, and
// the diff must still show what the agent changed.
func TestAgentCannotSteerTheDiff(t *testing.T) {
	t.Parallel()
	const change = `echo two >> a.txt`
	tests := []struct {
		name    string
		agent   string
		want    []string
		notWant []string
		// wantErr: Diff refuses to answer, with this in its error.
		wantErr string
	}{
		{name: "fsmonitor in the workspace's config",
			agent: `git config core.fsmonitor "$EVIL"; ` + change, want: []string{"+two"}},
		{name: "hooks in the workspace's repository",
			agent: `mkdir -p .git/hooks; for h in pre-commit post-commit post-index-change reference-transaction post-checkout; do cp "$EVIL" .git/hooks/$h; done
				git config core.hooksPath .git/hooks; ` + change, want: []string{"+two"}},
		{name: "textconv and external diff drivers",
			agent: `git config diff.evil.textconv "$EVIL"; git config diff.evil.command "$EVIL"; git config diff.external "$EVIL"
				echo '* diff=evil' > .gitattributes; ` + change, want: []string{"+two"}},
		{name: "clean filter",
			agent: `git config filter.evil.clean "$EVIL"; git config filter.evil.required true
				echo '* filter=evil' > .gitattributes; ` + change, want: []string{"+two"}},
		{name: "-diff attribute", agent: `echo '* -diff' > .gitattributes; ` + change,
			want: []string{"+two"}, notWant: []string{"Binary files"}},
		{name: "binary macro in a subdirectory", agent: `printf '[attr]opaque -diff -text\n* opaque\n' > .gitattributes; echo '* binary' > sub/.gitattributes
				echo more >> sub/keep.txt; ` + change, want: []string{"+two", "+more"}, notWant: []string{"Binary files"}},
		{name: "line-ending normalisation", agent: `echo '* text eol=lf' > .gitattributes; printf 'one\r\n' > a.txt`,
			want: []string{"-one\n+one\r"}},
		{name: "attributes and excludes in the workspace's repository",
			agent: `mkdir -p .git/info; echo '* -diff' > .git/info/attributes; echo 'new.txt' >> .git/info/exclude
				echo fresh > new.txt; ` + change, want: []string{"+two", "+++ b/new.txt"}, notWant: []string{"Binary files"}},
		{name: "committed changes", agent: change + `; echo fresh > new.txt; git add -A; git commit -qm done`,
			want: []string{"+two", "+++ b/new.txt"}},
		{name: "repository replaced", agent: `rm -rf .git; git init -q; ` + change + `; git add -A; git commit -qm mine`,
			want: []string{"+two"}},
		{name: ".git as a file pointing elsewhere", agent: `rm -rf .git; echo "gitdir: $SCRATCH" > .git; ` + change,
			want: []string{"+two"}},
		{name: ".git as a link to elsewhere", agent: `rm -rf .git; ln -s "$SCRATCH" .git; ` + change,
			want: []string{"+two"}},
		{name: ".gitignore hiding new files",
			agent: `printf 'secret.txt\n*.py\n' >> .gitignore; echo s > secret.txt; echo p > sub/new.py; echo '*' > sub/.gitignore`,
			want:  []string{"+++ b/secret.txt", "+++ b/sub/new.py", "+++ b/.gitignore", "+secret.txt", "+++ b/sub/.gitignore"}},
		{name: "template's ignore rules still hold", agent: `rm .gitignore; echo noise > debug.log; mkdir build; echo o > build/out.o; echo t > sub/tmp1`,
			want: []string{"deleted file mode", "--- a/.gitignore"}, notWant: []string{"debug.log", "build/out.o", "sub/tmp1"}},
		{name: "a directory named like a set-aside repository", agent: `mkdir -p .git.evalgate-nested; echo hidden > .git.evalgate-nested/x`,
			want: []string{"+++ b/.git.evalgate-nested/x"}},
		// evalgate's own repository is a sibling of the workspace, and the agent runs as the
		// same user: what it does there must not hide its changes either.
		{name: "skip-worktree in evalgate's index",
			agent: `G=$(echo ../evalgate-git-*/repo); ` + change + `; git --git-dir="$G" --work-tree=. update-index --skip-worktree a.txt`,
			want:  []string{"+two"}},
		{name: "evalgate's config, hooks and refs rewritten",
			agent: `G=$(echo ../evalgate-git-*/repo); ` + change + `; git --git-dir="$G" --work-tree=. add -A; git --git-dir="$G" --work-tree=. commit -qm hide
				git --git-dir="$G" config core.fsmonitor "$EVIL"; mkdir -p "$G/hooks"; cp "$EVIL" "$G/hooks/post-index-change"
				echo '* -diff' > "$G/info/attributes"`,
			want: []string{"+two"}, notWant: []string{"Binary files"}},
		// The agent stores its new a.txt in evalgate's repository and puts that object where
		// the baseline's a.txt is: git does not check a blob's hash when it diffs it, so the
		// "old" side would read the same as the new one. The baseline's blobs are in a pack;
		// the agent unpacks them first, so that git reads the forged loose object.
		{name: "evalgate's baseline blob forged",
			agent: `G=$(echo ../evalgate-git-*/repo); ` + change + `
				mkdir "$SCRATCH/pack"; mv "$G"/objects/pack/* "$SCRATCH/pack/"; git --git-dir="$G" unpack-objects -q < "$(echo "$SCRATCH"/pack/*.pack)"
				old=$(git --git-dir="$G" rev-parse "$(cat "$G/refs/heads/main"):a.txt"); new=$(git --git-dir="$G" hash-object -w a.txt)
				obj() { echo "$G/objects/$(echo $1 | cut -c1-2)/$(echo $1 | cut -c3-)"; }
				chmod u+w "$(obj $old)"; cp "$(obj $new)" "$(obj $old)"`,
			wantErr: "evalgate's baseline repository was altered"},
		{name: "evalgate's baseline pack altered",
			agent: `G=$(echo ../evalgate-git-*/repo); ` + change + `
				p=$(echo "$G"/objects/pack/*.pack); chmod u+w "$p"; printf X | dd of="$p" bs=1 seek=20 conv=notrunc 2>/dev/null`,
			wantErr: "evalgate's baseline repository was altered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			scratch := t.TempDir()
			mark, evil := filepath.Join(scratch, "ran"), filepath.Join(scratch, "evil.sh")
			if err := os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+q(mark)+"\ncat\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			w, err := prepare(ctx, t.TempDir(), containTemplate(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close(false)
			agent := exec.Command("sh", "-ec", tt.agent)
			agent.Dir = w.Dir()
			agent.Env = append(os.Environ(), "EVIL="+evil, "SCRATCH="+scratch, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
				"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@a", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@a")
			if out, err := agent.CombinedOutput(); err != nil {
				t.Fatalf("agent: %v\n%s", err, out)
			}
			diff, err := w.Diff(ctx)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("diff = %q, %v; want an error saying %q", diff, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.want {
				if !strings.Contains(diff, s) {
					t.Errorf("diff lacks %q:\n%s", s, diff)
				}
			}
			for _, s := range tt.notWant {
				if strings.Contains(diff, s) {
					t.Errorf("diff has %q:\n%s", s, diff)
				}
			}
			// A shared workspace moves the baseline after the agent: that commit must not run
			// the agent's hooks either, nor write through its links.
			if err := w.baseline(ctx); err != nil {
				t.Fatal(err)
			}
			if diff, err := w.Diff(ctx); err != nil || diff != "" {
				t.Errorf("diff after a new baseline = %q, %v", diff, err)
			}
			if _, err := os.Stat(mark); err == nil {
				t.Error("evalgate ran a program the agent planted")
			}
			if entries, _ := os.ReadDir(scratch); len(entries) != 1 {
				t.Errorf("something wrote to where the agent's .git pointed: %v", entries)
			}
		})
	}
}

// TestAgentRepositoryMirrorsTheBaseline: the agent's own .git shows exactly its changes.
func TestAgentRepositoryMirrorsTheBaseline(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	w, err := prepare(ctx, t.TempDir(), containTemplate(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(false)
	agentGit := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = w.Dir()
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if st := agentGit("status", "--porcelain"); st != "" {
		t.Fatalf("fresh workspace status = %q", st)
	}
	if err := os.WriteFile(filepath.Join(w.Dir(), "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st := agentGit("status", "--porcelain"); st != " M a.txt\n" {
		t.Errorf("status = %q, want a.txt modified", st)
	}
	theirs := agentGit("diff", "--no-color")
	ours, err := w.Diff(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimRight(theirs, "\n") != ours {
		t.Errorf("the agent's git diff:\n%s\nevalgate's:\n%s", theirs, ours)
	}
	for _, p := range []string{filepath.Join(w.Dir(), ".git", "hooks"), filepath.Join(w.home, "repo", "hooks")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists: hooks could run", p)
		}
	}
	if rel, err := filepath.Rel(w.Dir(), w.gitDir()); err == nil && !strings.HasPrefix(rel, "..") {
		t.Errorf("evalgate's repository %s is inside the workspace", w.gitDir())
	}
}

func TestDiffRefusesAReplacedWorkspace(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	w, err := prepare(ctx, t.TempDir(), containTemplate(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(false)
	elsewhere := containTemplate(t)
	if err := os.RemoveAll(w.Dir()); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, w.Dir()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Diff(ctx); err == nil || !strings.Contains(err.Error(), "was replaced") {
		t.Fatalf("err = %v, want the workspace refused", err)
	}
	if kept, _ := w.Close(true); kept != "" {
		t.Errorf("a replaced workspace reported as kept at %s", kept)
	}
}

// TestRunHookEnvironment: a hook sees the allow-listed environment and AGENTV_WORKSPACE_PATH,
// never the job's secrets. (Not parallel: it sets evalgate's own environment.)
func TestRunHookEnvironment(t *testing.T) { //nolint:paralleltest // t.Setenv: it sets evalgate's own environment
	secrets := []string{"INPUT_GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "OPENAI_API_KEY"}
	for _, k := range secrets {
		t.Setenv(k, "secret-"+k)
	}
	dir, envFile := t.TempDir(), filepath.Join(t.TempDir(), "env")
	if _, err := runHook(t.Context(), afterEach, hook(1, "env > "+q(envFile)), hookInput{}, dir, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	env := "\n" + string(b)
	for _, k := range secrets {
		if strings.Contains(env, k) {
			t.Errorf("the hook saw %s", k)
		}
	}
	for _, want := range []string{"\nPATH=", "\nAGENTV_WORKSPACE_PATH=" + dir + "\n"} {
		if !strings.Contains(env, want) {
			t.Errorf("the hook lacks %q:\n%s", strings.TrimSpace(want), env)
		}
	}
}
