package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// configName is the file the linters' settings and exclusion baseline live in.
const configName = ".golangci.yml"

// drive runs go vet over the packages with this executable as the vet tool and returns the
// exit code to leave with.
func drive(patterns []string) (int, error) {
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	wd, err := os.Getwd()
	if err != nil {
		return 2, fmt.Errorf("find %s: %w", configName, err)
	}
	path, err := findConfig(wd)
	if err != nil {
		return 2, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return 2, fmt.Errorf("read config: %w", err)
	}
	// Parsed here too so a broken config is one error, not one per package.
	if _, err := parseConfig(data); err != nil {
		return 2, fmt.Errorf("%s: %w", path, err)
	}
	self, err := os.Executable()
	if err != nil {
		return 2, fmt.Errorf("find own executable: %w", err)
	}
	sum := sha256.Sum256(data)
	args := append([]string{"vet", "-vettool=" + self, "-config=" + path, "-config.sha256=" + hex.EncodeToString(sum[:])}, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if exit, ok := errors.AsType[*exec.ExitError](err); ok {
			return exit.ExitCode(), nil
		}
		return 2, fmt.Errorf("go vet: %w", err)
	}
	return 0, nil
}

// findConfig returns the absolute path of the nearest .golangci.yml at or above dir.
func findConfig(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, configName)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no %s in %s or above", configName, dir)
		}
	}
}
