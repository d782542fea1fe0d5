package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

const fixtures = "../../topology/testdata/"

// TestGolden renders every fixture and compares with testdata/NAME.golden.
func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"intel-2s-compact", []string{"-root", fixtures + "intel-2s"}},
		{"intel-2s-scatter-6", []string{"-root", fixtures + "intel-2s", "-policy", "scatter", "-workers", "6"}},
		{"intel-2s-cpus-oversubscribed", []string{"-root", fixtures + "intel-2s", "-cpus", "4-5", "-workers", "3"}},
		{"epyc-nps2-scatter-8", []string{"-root", fixtures + "epyc-nps2", "-policy", "scatter", "-workers", "8"}},
		{"arm64-biglittle-compact", []string{"-root", fixtures + "arm64-biglittle"}},
		{"container-1cpu-compact", []string{"-root", fixtures + "container-1cpu"}},
		{"holes-none", []string{"-root", fixtures + "holes", "-policy", "none"}},
		{"this-vm-compact", []string{"-root", fixtures + "this-vm"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(c.args, &out, &errOut); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			golden := filepath.Join("testdata", c.name+".golden")
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got := out.String(); got != string(want) {
				t.Errorf("output differs from %s (run with -update if the change is intended):\n--- got\n%s\n--- want\n%s", golden, got, want)
			}
		})
	}
}

func TestLive(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-workers", "3", "-policy", "scatter"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, s := range []string{"CPU topology from", "Tree", "NUMA nodes:", "Placement of 3 workers, policy scatter:", "worker 2:", "Steal tiers"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}
}

func TestBadInput(t *testing.T) {
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-policy", "spread"}, 2, "unknown placement policy"},
		{[]string{"-root", "no/such/dir"}, 2, "not a directory"},
		{[]string{"-root", fixtures + "intel-2s", "-cpus", "3-1"}, 2, "runs backwards"},
		{[]string{"-root", fixtures + "container-1cpu", "-cpus", "0-1"}, 1, "not allowed"},
		{[]string{"-root", fixtures + "intel-2s", "-workers", "-2"}, 1, "at least 1"},
		{[]string{"-bogus"}, 2, "flag provided but not defined"},
		{[]string{"extra"}, 2, "unexpected arguments"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		code := run(c.args, &out, &errOut)
		if code != c.code || !strings.Contains(errOut.String(), c.msg) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, errOut.String(), c.code, c.msg)
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"-h"}, &out, &errOut); code != 0 || !strings.Contains(errOut.String(), "-root") {
		t.Errorf("-h: exit %d, usage %q", code, errOut.String())
	}
}
