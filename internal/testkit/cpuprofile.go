package testkit

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// A profile as runtime/pprof writes it (gzip-compressed profile.proto),
// decoded as far as the tests need: each sample's stack, as function names,
// and its string labels. The decoder reads the protocol buffer wire format
// by hand rather than adding github.com/google/pprof to the module for
// tests alone (it follows the field numbers of profile.proto).

// ProfileSample is one sample of a profile.
type ProfileSample struct {
	// Funcs are the names of the functions on the sample's stack, leaf
	// first, inlined frames included ("github.com/x/y.F").
	Funcs []string
	// Labels are the sample's string labels (pprof.Labels).
	Labels map[string]string
	// Values are the sample's values (for a CPU profile: samples, ns).
	Values []int64
}

// HasFunc reports whether the sample's stack holds a function named name.
func (s ProfileSample) HasFunc(name string) bool { return slices.Contains(s.Funcs, name) }

// ParseProfile decodes a profile written by runtime/pprof (StartCPUProfile,
// or a Profile's WriteTo with debug 0).
func ParseProfile(data []byte) ([]ProfileSample, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, err
		}
	}
	type rawSample struct {
		locs   []uint64
		values []int64
		labels [][2]int64 // key, str: indexes into the string table
	}
	var (
		samples   []rawSample
		locFuncs  = map[uint64][]uint64{} // location id -> function ids, leaf first
		funcNames = map[uint64]int64{}    // function id -> name index
		strs      []string
	)
	err := eachField(data, func(num int, wire int, v uint64, b []byte) error {
		switch num {
		case 2: // sample
			var s rawSample
			err := eachField(b, func(num, wire int, v uint64, b []byte) error {
				switch num {
				case 1:
					ids, err := varints(wire, v, b)
					s.locs = append(s.locs, ids...)
					return err
				case 2:
					vs, err := varints(wire, v, b)
					for _, x := range vs {
						s.values = append(s.values, int64(x))
					}
					return err
				case 3:
					var kv [2]int64
					err := eachField(b, func(num, _ int, v uint64, _ []byte) error {
						if num == 1 || num == 2 {
							kv[num-1] = int64(v)
						}
						return nil
					})
					s.labels = append(s.labels, kv)
					return err
				}
				return nil
			})
			samples = append(samples, s)
			return err
		case 4: // location
			var id uint64
			var fns []uint64
			err := eachField(b, func(num, _ int, v uint64, b []byte) error {
				switch num {
				case 1:
					id = v
				case 4: // line
					return eachField(b, func(num, _ int, v uint64, _ []byte) error {
						if num == 1 {
							fns = append(fns, v)
						}
						return nil
					})
				}
				return nil
			})
			locFuncs[id] = fns
			return err
		case 5: // function
			var id uint64
			var name int64
			err := eachField(b, func(num, _ int, v uint64, _ []byte) error {
				switch num {
				case 1:
					id = v
				case 2:
					name = int64(v)
				}
				return nil
			})
			funcNames[id] = name
			return err
		case 6: // string_table
			strs = append(strs, string(b))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	str := func(i int64) (string, error) {
		if i < 0 || i >= int64(len(strs)) {
			return "", fmt.Errorf("profile: string index %d out of range", i)
		}
		return strs[i], nil
	}
	out := make([]ProfileSample, 0, len(samples))
	for _, rs := range samples {
		s := ProfileSample{Values: rs.values, Labels: map[string]string{}}
		for _, loc := range rs.locs {
			for _, fn := range locFuncs[loc] {
				name, err := str(funcNames[fn])
				if err != nil {
					return nil, err
				}
				s.Funcs = append(s.Funcs, name)
			}
		}
		for _, kv := range rs.labels {
			k, err := str(kv[0])
			if err != nil {
				return nil, err
			}
			if kv[1] == 0 {
				continue // a numeric label
			}
			v, err := str(kv[1])
			if err != nil {
				return nil, err
			}
			s.Labels[k] = v
		}
		out = append(out, s)
	}
	return out, nil
}

var errProfile = errors.New("profile: malformed protocol buffer")

// eachField calls f for each field of the protocol buffer message b: its
// number and wire type, and its value (varint and fixed types) or bytes
// (length-delimited).
func eachField(b []byte, f func(num, wire int, v uint64, b []byte) error) error {
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return errProfile
		}
		b = b[n:]
		num, wire := int(key>>3), int(key&7)
		var v uint64
		var field []byte
		switch wire {
		case 0: // varint
			v, n = binary.Uvarint(b)
			if n <= 0 {
				return errProfile
			}
			b = b[n:]
		case 1: // 64-bit
			if len(b) < 8 {
				return errProfile
			}
			v, b = binary.LittleEndian.Uint64(b), b[8:]
		case 2: // length-delimited
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return errProfile
			}
			field, b = b[n:n+int(l)], b[n+int(l):]
		case 5: // 32-bit
			if len(b) < 4 {
				return errProfile
			}
			v, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		default:
			return errProfile
		}
		if err := f(num, wire, v, field); err != nil {
			return err
		}
	}
	return nil
}

// varints returns a repeated varint field's values: one (wire type 0) or a
// packed run (wire type 2).
func varints(wire int, v uint64, b []byte) ([]uint64, error) {
	if wire == 0 {
		return []uint64{v}, nil
	}
	var out []uint64
	for len(b) > 0 {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, errProfile
		}
		out = append(out, x)
		b = b[n:]
	}
	return out, nil
}
