package potato

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/evalgate/evalgate/internal/calibrate"
)

// maxAnnotationBytes bounds one annotation file.
const maxAnnotationBytes = 256 << 20

// readPaths reads the annotation files paths name (a directory stands for the *.jsonl and
// *.json files below it), each with the map that labels it, and drops ratings read twice.
// read hears each file's source and the map's path ("" = none) as it is read. It returns the
// ratings, each file's source and the files read.
func readPaths(paths []string, read func(src *calibrate.Source, mapPath string)) ([]*annotation, []*calibrate.Source, []string, error) {
	files, err := annotationFiles(paths)
	if err != nil {
		return nil, nil, nil, err
	}
	var anns []*annotation
	var sources []*calibrate.Source
	seen := newSeen()
	for _, f := range files {
		data, err := readBounded(f)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("read annotations: %w", err)
		}
		m, mapPath, err := findMap(f)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("read annotations: %w", err)
		}
		a, src, err := readFile(data, f, m)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("read annotations: %w", err)
		}
		anns = append(anns, dedupe(a, seen, src)...)
		sources = append(sources, src)
		if read != nil {
			read(src, mapPath)
		}
	}
	return anns, sources, files, nil
}

// annotationFiles expands directories into the *.jsonl and *.json files below them.
func annotationFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("annotations: %w", err)
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			// The export's own map sits beside the annotations; it holds no ratings.
			if ext := filepath.Ext(path); !d.IsDir() && (ext == ".jsonl" || ext == ".json") && d.Name() != MapFile {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("annotations: %w", err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("annotations: no .jsonl or .json file under %s", p)
		}
		slices.Sort(found)
		out = append(out, found...)
	}
	return out, nil
}

// readBounded reads a file of at most maxAnnotationBytes.
func readBounded(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.Size() > maxAnnotationBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB", path, maxAnnotationBytes>>20)
	}
	return os.ReadFile(path)
}
