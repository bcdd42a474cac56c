package workspace

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/proc"
	"github.com/evalgate/evalgate/internal/suite"
)

// envCheckTimeout bounds one python3 import check.
const envCheckTimeout = 30 * time.Second

// importCheck imports the module named by its argument: the name is data, never code.
const importCheck = "import importlib, sys; importlib.import_module(sys.argv[1])"

// checkEnv runs AgentV's preflight for workspace.env: every required command must be in PATH
// and every required Python module importable by python3 (run as hooks run, with the
// allow-listed environment). The error names everything missing.
func checkEnv(ctx context.Context, env suite.WorkspaceEnv, user *proc.User) error {
	var missing []string
	for _, c := range env.RequiredCommands {
		if _, err := exec.LookPath(c); err != nil {
			missing = append(missing, "command "+c)
		}
	}
	if len(env.RequiredPythonModules) > 0 {
		if _, err := exec.LookPath("python3"); err != nil {
			missing = append(missing, "python3 (to import "+strings.Join(env.RequiredPythonModules, ", ")+")")
		} else {
			for _, m := range env.RequiredPythonModules {
				ok, err := importable(ctx, m, user)
				if err != nil {
					return fmt.Errorf("workspace env%s: %w", at(env.Pos), err)
				}
				if !ok {
					missing = append(missing, "python module "+m)
				}
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("workspace env%s: missing %s: install them before running this suite",
		at(env.Pos), strings.Join(missing, ", "))
}

// importable reports whether python3 can import module; an error is a check that could not
// be made (cancelled, timed out).
func importable(ctx context.Context, module string, user *proc.User) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, envCheckTimeout)
	defer cancel()
	cmd := proc.Command(ctx, "python3", "-c", importCheck, module)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	cmd.Grace, cmd.User = hookGrace, user
	st, err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return false, fmt.Errorf("checking python module %s: %w", module, ctx.Err())
	case err != nil:
		return false, fmt.Errorf("checking python module %s: %w", module, err)
	}
	return st.Exited() && st.Code == 0, nil
}
