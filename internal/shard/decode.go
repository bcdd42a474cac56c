package shard

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/evalgate/evalgate/internal/result"
)

// decodeRun reads a results.json as a stream, one test at a time: json.Decoder.Decode of the
// whole run would first buffer the whole file, as large as the results it holds. Each suite
// goes to onSuite once read, instead of into the run's Suites, when onSuite is set.
func decodeRun(r io.Reader, onSuite func(*result.SuiteResult) error) (*result.Run, error) {
	dec := json.NewDecoder(r)
	rest := map[string]json.RawMessage{}
	var suites []*result.SuiteResult
	_, err := object(dec, func(key string) error {
		if key != "suites" {
			return raw(dec, rest, key)
		}
		_, err := array(dec, func() error {
			sr, err := decodeSuite(dec)
			switch {
			case err != nil || sr == nil:
				// A null suite, as a hand-edited file may hold, is skipped (as reports reads it).
				return err
			case onSuite != nil:
				return onSuite(sr)
			}
			suites = append(suites, sr)
			return nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("at byte %d: %w", dec.InputOffset(), err)
	}
	var run result.Run
	if err := unmarshalRest(rest, &run); err != nil {
		return nil, err
	}
	run.Suites = suites
	return &run, nil
}

// decodeSuite reads one suite result, its tests one by one; nil for null.
func decodeSuite(dec *json.Decoder) (*result.SuiteResult, error) {
	rest := map[string]json.RawMessage{}
	var tests []*result.TestResult
	null, err := object(dec, func(key string) error {
		if key != "tests" {
			return raw(dec, rest, key)
		}
		tests = []*result.TestResult{}
		null, err := array(dec, func() error {
			var tr *result.TestResult
			if err := dec.Decode(&tr); err != nil {
				return err
			}
			tests = append(tests, tr)
			return nil
		})
		if null {
			tests = nil
		}
		return err
	})
	if err != nil || null {
		return nil, err
	}
	var sr result.SuiteResult
	if err := unmarshalRest(rest, &sr); err != nil {
		return nil, err
	}
	sr.Tests = tests
	return &sr, nil
}

// unmarshalRest decodes an object's small fields, read aside, into v.
func unmarshalRest(rest map[string]json.RawMessage, v any) error {
	b, err := json.Marshal(rest)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func raw(dec *json.Decoder, into map[string]json.RawMessage, key string) error {
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return err
	}
	into[key] = v
	return nil
}

// object reads a JSON object, calling field for each key with the decoder at its value;
// null is true when it was null instead.
func object(dec *json.Decoder, field func(key string) error) (null bool, err error) {
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return tok == nil && err == nil, err
	}
	if tok != json.Delim('{') {
		return false, fmt.Errorf("want an object, found %v", tok)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false, err
		}
		key, ok := tok.(string)
		if !ok {
			return false, fmt.Errorf("want a key, found %v", tok)
		}
		if err := field(key); err != nil {
			return false, err
		}
	}
	_, err = dec.Token() // '}'
	return false, err
}

// array reads a JSON array, calling elem with the decoder at each element; null is true
// when it was null instead.
func array(dec *json.Decoder, elem func() error) (null bool, err error) {
	tok, err := dec.Token()
	if err != nil || tok == nil {
		return tok == nil && err == nil, err
	}
	if tok != json.Delim('[') {
		return false, fmt.Errorf("want an array, found %v", tok)
	}
	for dec.More() {
		if err := elem(); err != nil {
			return false, err
		}
	}
	_, err = dec.Token() // ']'
	return false, err
}
