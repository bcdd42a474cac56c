package suite

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// likert reads a Potato rubric_eval scheme, inline or from scheme: file://potato.yaml#name.
func (r *reader) likert(sc scope, n *yaml.Node, f map[string]*yaml.Node) *LikertScheme {
	if ref, ok := f["scheme"]; ok {
		s, _ := r.str(sc, ref, "scheme")
		file, name, _ := strings.Cut(s, "#")
		path, ok := r.path(ref, file)
		if !ok {
			return nil
		}
		data, err := r.readFile(path)
		if err != nil {
			r.errorf(ref, "scheme %s: %v", s, err)
			return nil
		}
		saved := r.file
		r.file = r.rel(path)
		defer func() { r.file = saved }()
		root := r.parseYAML(data)
		if root == nil {
			return nil
		}
		pf, _ := r.quietFields(root)
		schemes := resolve(pf["annotation_schemes"])
		if schemes == nil || schemes.Kind != yaml.SequenceNode {
			r.errorf(root, "%s has no annotation_schemes list", r.file)
			return nil
		}
		for _, sn := range schemes.Content {
			sf, _ := r.quietFields(sn)
			if sf == nil || resolve(sf["annotation_type"]).Value != "rubric_eval" {
				continue
			}
			if name == "" || resolve(sf["name"]).Value == name {
				return r.scheme(sc, sn)
			}
		}
		r.errorf(ref, "no rubric_eval scheme %q in %s", name, r.file)
		return nil
	}
	return r.scheme(sc, n)
}

func (r *reader) scheme(sc scope, n *yaml.Node) *LikertScheme {
	f, ok := r.fields(n, "rubric_eval", append(commonGraderKeys, "criteria")...)
	if !ok {
		return nil
	}
	s := &LikertScheme{Name: r.optStr(sc, f, "name", "rubric_eval"), Min: 1, Max: 5, Labels: map[int]string{}}
	if scale, ok := f["scale"]; ok {
		sf, _ := r.fields(scale, "scale", "min", "max", "labels")
		if v, ok := sf["min"]; ok {
			s.Min, _ = r.integer(sc, v, "scale.min")
		}
		if v, ok := sf["max"]; ok {
			s.Max, _ = r.integer(sc, v, "scale.max")
		}
		if s.Min >= s.Max {
			r.errorf(scale, "scale.min (%d) must be below scale.max (%d)", s.Min, s.Max)
			return nil
		}
		if l, ok := sf["labels"]; ok {
			s.Labels = r.anchors(sc, l, s, "scale.labels")
		}
	}
	crit := resolve(f["criteria"])
	if crit == nil || crit.Kind != yaml.SequenceNode || len(crit.Content) == 0 {
		r.errorf(n, "rubric_eval needs a criteria list")
		return nil
	}
	for _, c := range crit.Content {
		cf, ok := r.fields(c, "rubric_eval criterion", "name", "label", "description", "weight", "scale_descriptions")
		if !ok {
			continue
		}
		lc := &LikertCriterion{Name: r.optStr(sc, cf, "name", "criterion"), Label: r.optStr(sc, cf, "label", "criterion"),
			Description: r.optStr(sc, cf, "description", "criterion"), Weight: 1, Pos: r.pos(c)}
		if lc.Name == "" {
			r.errorf(c, "rubric_eval criterion has no name")
			continue
		}
		if w, ok := cf["weight"]; ok {
			if v, ok := r.num(sc, w, "weight"); ok {
				if v < 0 {
					r.errorf(w, "criterion %s: weight must not be negative", lc.Name)
				}
				lc.Weight = v
			}
		}
		if a, ok := cf["scale_descriptions"]; ok {
			lc.Anchors = r.anchors(sc, a, s, "scale_descriptions")
		}
		s.Criteria = append(s.Criteria, lc)
	}
	if o, ok := f["overall"]; ok {
		of, _ := r.fields(o, "overall", "enabled", "label", "description", "scale_descriptions")
		enabled := true
		if e, ok := of["enabled"]; ok {
			enabled, _ = r.boolean(sc, e, "overall.enabled")
		}
		if enabled {
			s.Overall = &LikertCriterion{Name: "overall", Label: r.optStr(sc, of, "label", "overall"), Description: r.optStr(sc, of, "description", "overall"), Pos: r.pos(o)}
			if a, ok := of["scale_descriptions"]; ok {
				s.Overall.Anchors = r.anchors(sc, a, s, "overall.scale_descriptions")
			}
		}
	}
	return s
}

// anchors reads {point: text} and checks each point is on the scale.
func (r *reader) anchors(sc scope, n *yaml.Node, s *LikertScheme, what string) map[int]string {
	n = resolve(n)
	out := map[int]string{}
	if n.Kind != yaml.MappingNode {
		r.errorf(n, "%s must be a mapping of scale points to text", what)
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		p, err := strconv.Atoi(n.Content[i].Value)
		if err != nil || p < s.Min || p > s.Max {
			r.errorf(n.Content[i], "%s: %q is not a point on the scale %d-%d", what, n.Content[i].Value, s.Min, s.Max)
			continue
		}
		out[p], _ = r.str(sc, n.Content[i+1], what)
	}
	return out
}
