package judge

import (
	"strings"

	"github.com/sourcegraph/go-diff/diff"
)

// diffFile is one file of a diff: its text, cut into the header and the hunks, and its kind.
type diffFile struct {
	name   string
	kind   string
	binary bool
	seg    string   // the file's whole diff
	header string   // "diff --git", extended headers, the ---/+++ lines
	hunks  []string // each hunk with its @@ line
	out    string   // what the budget lets the judge see
}

func (f *diffFile) size() int { return len(f.seg) }

// splitGit cuts a git diff into files at its "diff --git " lines and each file into header
// and hunks at its "@@ " lines, as slices of d: nothing is copied, so a diff of megabytes
// costs the judge little more than the part it shows. Neither kind of line can start a hunk's
// body line, which always starts with ' ', '+', '-' or '\'. It returns nil for a diff that is
// not git's.
func splitGit(d string) []*diffFile {
	if !strings.HasPrefix(d, "diff --git ") {
		return nil
	}
	var files []*diffFile
	for d != "" {
		seg := d
		if end := strings.Index(d, "\ndiff --git "); end >= 0 {
			seg, d = d[:end+1], d[end+1:]
		} else {
			d = ""
		}
		files = append(files, gitFile(seg))
	}
	return files
}

func gitFile(seg string) *diffFile {
	f := &diffFile{seg: seg, header: seg}
	if i := strings.Index(seg, "\n@@ "); i >= 0 {
		f.header = seg[:i+1]
		for rest := seg[i+1:]; rest != ""; {
			end := strings.Index(rest[1:], "\n@@ ")
			if end < 0 {
				f.hunks = append(f.hunks, rest)
				break
			}
			f.hunks = append(f.hunks, rest[:end+2])
			rest = rest[end+2:]
		}
	}
	var plus, minus, renamed, first string
	for rest := f.header; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		switch {
		case first == "":
			first = line
		case strings.HasPrefix(line, "+++ "):
			plus = strings.TrimPrefix(line[4:], "b/")
		case strings.HasPrefix(line, "--- "):
			minus = strings.TrimPrefix(line[4:], "a/")
		case strings.HasPrefix(line, "rename to "):
			renamed = line[len("rename to "):]
		case strings.HasPrefix(line, "Binary files "), strings.HasPrefix(line, "GIT binary patch"):
			f.binary = true
		}
	}
	switch {
	case plus != "" && plus != "/dev/null":
		f.name = plus
	case minus != "" && minus != "/dev/null":
		f.name = minus
	case renamed != "":
		f.name = renamed
	default:
		// "diff --git a/x b/x": with no ---/+++ lines (a mode change, a binary file) the
		// name is only here.
		if i := strings.LastIndex(first, " b/"); i >= 0 {
			f.name = first[i+3:]
		} else {
			f.name = first
		}
	}
	return f
}

// fromFileDiffs renders a diff that is not git's, parsed by go-diff, into files.
func fromFileDiffs(fds []*diff.FileDiff) []*diffFile {
	files := make([]*diffFile, 0, len(fds))
	for _, fd := range fds {
		f := &diffFile{name: fileName(fd), binary: isBinary(fd)}
		head := *fd
		if fd.Hunks != nil {
			head.Hunks = []*diff.Hunk{} // non-nil: print the ---/+++ lines, no hunk
		}
		h, _ := diff.PrintFileDiff(&head) // writes to a bytes.Buffer cannot fail
		f.header = string(h)
		var seg strings.Builder
		seg.WriteString(f.header)
		for _, hunk := range fd.Hunks {
			b, _ := diff.PrintHunks([]*diff.Hunk{hunk})
			f.hunks = append(f.hunks, string(b))
			seg.Write(b)
		}
		f.seg = seg.String()
		files = append(files, f)
	}
	return files
}

// fileName is the file's path in the new tree, or the old one for a deletion.
func fileName(fd *diff.FileDiff) string {
	name := strings.TrimPrefix(strings.TrimPrefix(fd.NewName, "b/"), "a/")
	if name == "/dev/null" || name == "" {
		name = strings.TrimPrefix(fd.OrigName, "a/")
	}
	return name
}

func isBinary(fd *diff.FileDiff) bool {
	for _, x := range fd.Extended {
		if strings.HasPrefix(x, "Binary files") || strings.HasPrefix(x, "GIT binary patch") {
			return true
		}
	}
	return false
}
