// Command lint is evalgate's linter: the linters .golangci.yml enables (staticcheck's checks,
// unused, errorlint, paralleltest, forbidigo), built from the analyzer libraries
// golangci-lint itself uses and run by the go command as a vet tool. From the repository root:
//
//	(cd tools/lint && go build -o /tmp/evalgate-lint .)
//	/tmp/evalgate-lint ./...
//
// Invoked with package patterns it runs `go vet -vettool=<itself>` over them with the nearest
// .golangci.yml; go vet then invokes it once per package. Why not golangci-lint: built and run
// on a clean 2-core machine that took ~14 minutes, mostly type-checking every dependency from
// source; go vet instead hands the analyzers the compiler's export data from the build cache
// that `go vet ./...` has just filled, and caches clean packages. golangci-lint reading the same
// .golangci.yml reports the same findings; config.go says which part of that file this reads
// (anything else is an error, never silently ignored).
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"golang.org/x/tools/go/analysis/unitchecker"
)

func main() {
	if args := os.Args[1:]; !invokedByVet(args) {
		code, err := drive(args)
		if err != nil {
			fmt.Fprintln(os.Stderr, "lint:", err)
		}
		os.Exit(code)
	}
	// go vet learns these flags from `lint -flags` and passes them through on every call.
	configPath := flag.String("config", "", "the .golangci.yml to apply (absolute path)")
	flag.String("config.sha256", "", "the config's digest; go vet caches results by tool and flags, so a changed config must change a flag")
	unitchecker.Main(analyzers(configPath)...)
}

// invokedByVet tells go vet's calls (-V=full, -flags, then a package's .cfg file) from a
// person's or CI's, which name packages.
func invokedByVet(args []string) bool {
	if len(args) == 0 {
		return false
	}
	last := args[len(args)-1]
	return strings.HasSuffix(last, ".cfg") || strings.HasPrefix(last, "-V") || last == "-flags"
}
