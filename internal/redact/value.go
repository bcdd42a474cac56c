package redact

import "reflect"

// Value scrubs, in place, every string reachable from v (a pointer): struct fields, slice and
// array elements, map keys and values, through pointers and interfaces. Renderers escape text
// for Markdown and HTML (a mention-breaking "@&#8203;", entities), after which a secret no
// longer reads as itself and scrubbing the rendered text misses it; scrubbing the model before
// anything is rendered catches it in every form. Unexported fields are left alone.
func (r *Redactor) Value(v any) {
	if r.empty() {
		return
	}
	r.walk(reflect.ValueOf(v), map[uintptr]bool{})
}

func (r *Redactor) walk(v reflect.Value, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		r.walk(v.Elem(), seen)
	case reflect.Interface:
		if !v.CanInterface() {
			return
		}
		if v.IsNil() {
			return
		}
		if _, isErr := v.Interface().(error); isErr {
			// An error may be shared (a sentinel); its text is in the model's own strings.
			return
		}
		// The value inside an interface cannot be set: scrub a copy and put it back.
		inner := v.Elem()
		cp := reflect.New(inner.Type()).Elem()
		cp.Set(inner)
		r.walk(cp, seen)
		if v.CanSet() {
			v.Set(cp)
		}
	case reflect.String:
		if v.CanSet() {
			if s := r.String(v.String()); s != v.String() {
				v.SetString(s)
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				r.walk(v.Field(i), seen)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			r.walk(v.Index(i), seen)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		for _, k := range v.MapKeys() {
			val := reflect.New(v.Type().Elem()).Elem()
			val.Set(v.MapIndex(k))
			r.walk(val, seen)
			key := reflect.New(v.Type().Key()).Elem()
			key.Set(k)
			r.walk(key, seen)
			if !key.Equal(k) {
				v.SetMapIndex(k, reflect.Value{})
			}
			v.SetMapIndex(key, val)
		}
	}
}
