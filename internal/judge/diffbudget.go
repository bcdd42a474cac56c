package judge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/internal/safetext"
)

// minShare is the least a partly shown file gets: below it a file shows its header and a few
// lines, which tells the judge less than another file shown properly. When a fair share would
// be smaller, fewer files are shown (the first ones in diff order) and the rest only named.
const minShare = 1024

// cutNote ends a file shown in part; its length is reserved out of the file's share.
const cutNote = "[evalgate: the rest of this file's diff (%d lines) is left out]\n"

var cutNoteMax = len(fmt.Sprintf(cutNote, 1<<31))

// fitFiles shows files within budget: source files share it first, the other kinds share
// what is left once every source file is shown whole, and a note names what was shown in part
// or left out. total is the size of the diff as given.
func fitFiles(files []*diffFile, total, budget int) string {
	var source, rest []*diffFile
	size := 0
	for _, f := range files {
		switch f.kind {
		case kindBinary:
			continue
		case kindSource:
			source = append(source, f)
		default:
			rest = append(rest, f)
		}
		size += f.size()
	}
	left := budget
	if size > budget {
		left -= min(budget/4, noteBound(files))
	}
	share(source, left)
	whole := true
	for _, f := range source {
		left -= len(f.out)
		whole = whole && len(f.out) == f.size()
	}
	// What the cuts of source files leave over is a few lines' worth; it must not show the
	// generated files the source was cut for.
	if whole {
		share(rest, left)
	}
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f.out)
	}
	b.WriteString(note(files, total, budget, budget-b.Len()))
	return b.String()
}

// share gives files the allowance they are shown within: by water-filling, smallest first,
// each file whose diff is below an even share of what is left is shown whole and its unused
// share goes to the rest; the files above it are cut to the even share. It sets f.out.
func share(files []*diffFile, budget int) {
	order := slices.Clone(files)
	slices.SortStableFunc(order, func(a, b *diffFile) int { return a.size() - b.size() })
	left := budget
	for i, f := range order {
		even := max(left, 0) / (len(order) - i)
		if f.size() <= even {
			f.out = f.seg
			left -= f.size()
			continue
		}
		big := order[i:]
		if even < minShare && left > 0 {
			// Too many large files for a useful share each: the first ones in diff order
			// get at least minShare, the others are left out.
			large := make(map[*diffFile]bool, len(big))
			for _, f := range big {
				large[f] = true
			}
			big = slices.DeleteFunc(slices.Clone(files), func(f *diffFile) bool { return !large[f] })
			big = big[:min(len(big), max(1, left/minShare))]
			even = left / len(big)
		}
		for _, f := range big {
			f.out = f.cut(even)
		}
		return
	}
}

// cut is the file's diff within allow bytes: its header, whole hunks while they fit, then the
// lines of the next hunk that fit, and a line saying how much is left out. A file whose
// header does not fit is left out ("").
func (f *diffFile) cut(allow int) string {
	if allow >= f.size() {
		return f.seg
	}
	room := allow - cutNoteMax
	if room < len(f.header) {
		return ""
	}
	var b strings.Builder
	b.WriteString(f.header)
	for _, h := range f.hunks {
		if b.Len()+len(h) <= room {
			b.WriteString(h)
			continue
		}
		if fit := room - b.Len(); fit > 0 {
			if end := strings.LastIndexByte(h[:fit], '\n'); end > strings.IndexByte(h, '\n') {
				b.WriteString(h[:end+1])
			}
		}
		break
	}
	shown := strings.Count(b.String(), "\n") - strings.Count(f.header, "\n")
	all := 0
	for _, h := range f.hunks {
		all += strings.Count(h, "\n")
	}
	fmt.Fprintf(&b, cutNote, all-shown)
	return b.String()
}

// noteBound is the most the note could take: every file named.
func noteBound(files []*diffFile) int {
	n := 400
	for _, f := range files {
		n += len(f.name) + 24
	}
	return n
}

// note names the files shown in part or left out, within room bytes (at least one line).
func note(files []*diffFile, total, budget, room int) string {
	var cut, srcOut, otherOut, binary []string
	for _, f := range files {
		name := safetext.OneLine(f.name)
		switch {
		case f.kind == kindBinary:
			binary = append(binary, name)
		case len(f.out) == 0 && f.kind == kindSource:
			srcOut = append(srcOut, name)
		case len(f.out) == 0:
			otherOut = append(otherOut, name+" ("+f.kind+")")
		case len(f.out) < f.size():
			cut = append(cut, name) // the file's own last line says how much of it is left out
		}
	}
	if len(cut)+len(srcOut)+len(otherOut) == 0 {
		var b strings.Builder
		for _, n := range binary {
			fmt.Fprintf(&b, "[evalgate: %s changed (binary, not shown)]\n", n)
		}
		return b.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[evalgate: this diff (%d files, %s) is larger than the judge's %s budget. Source files share the budget first; generated, vendored and lock files get only what is left once all source is shown. The files below were shown in part or left out.]\n",
		len(files), kib(total), kib(budget))
	unlisted := 0
	for _, g := range []struct {
		label string
		names []string
	}{{"shown in part", cut}, {"left out, source", srcOut}, {"left out", otherOut}, {"binary, not shown", binary}} {
		if len(g.names) == 0 {
			continue
		}
		head := fmt.Sprintf("[evalgate: %s (%d): ", g.label, len(g.names))
		if b.Len()+len(head)+64 > room {
			unlisted += len(g.names)
			continue
		}
		b.WriteString(head)
		for i, n := range g.names {
			if b.Len()+len(n)+64 > room {
				unlisted += len(g.names) - i
				b.WriteString("…")
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(n)
		}
		b.WriteString("]\n")
	}
	if unlisted > 0 {
		fmt.Fprintf(&b, "[evalgate: %d more files not listed]\n", unlisted)
	}
	return b.String()
}

// kib renders a size for the note.
func kib(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}
