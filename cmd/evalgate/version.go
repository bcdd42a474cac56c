package main

import "github.com/evalgate/evalgate/internal/buildinfo"

// Build metadata stamped at link time by release builds (.goreleaser.yaml) and by the
// Dockerfile's VERSION, COMMIT and DATE build args:
//
//	-ldflags "-X main.version=1.2.3 -X main.commit=<sha> -X main.date=<RFC 3339>"
//
// Left empty, buildinfo.Version falls back to what the Go toolchain recorded in the binary.
var version, commit, date string

// versionString is the version evalgate prints for --version and "evalgate version".
func versionString() string { return buildinfo.Version(version, commit, date) }
