package pipeline

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/evalgate/evalgate/internal/proc"
)

// extraheader is a git config line carrying an HTTP header, as actions/checkout leaves the
// job's token behind unless persist-credentials is false.
var (
	extraheader = regexp.MustCompile(`(?i)^\s*extraheader\s*=`)
	section     = regexp.MustCompile(`^\s*\[\s*([A-Za-z0-9.-]+)`)
)

// protectCheckout keeps the credential a checkout step may have left in root/.git/config out
// of user commands' reach: it warns when one is there, and with an isolation user makes the
// file readable by its owner alone (evalgate, as root, still reads it). It changes nothing
// when there is no such file.
func protectCheckout(root string, user *proc.User, stderr io.Writer) {
	config := filepath.Join(root, ".git", "config")
	fi, err := os.Lstat(config)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	if hasExtraheader(config) {
		fmt.Fprintf(stderr, "evalgate: warning: %s holds an http extraheader (the checkout step's token): set persist-credentials: false on actions/checkout\n", config)
	}
	if user != nil && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(config, fi.Mode().Perm()&0o700); err != nil {
			fmt.Fprintf(stderr, "evalgate: warning: could not make %s private to its owner: %v\n", config, err)
		}
	}
}

// hasExtraheader reports whether a git config file sets an http.*.extraheader.
func hasExtraheader(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inHTTP := false
	for sc.Scan() {
		line := sc.Text()
		if m := section.FindStringSubmatch(line); m != nil {
			inHTTP = strings.EqualFold(m[1], "http")
		}
		if inHTTP && extraheader.MatchString(line) {
			return true
		}
	}
	return false
}
