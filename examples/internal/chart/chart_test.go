package chart

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/blitz-go/blitz/examples/internal/loadgen"
)

func TestDrawWritesEachFormat(t *testing.T) {
	rows := []loadgen.Row{
		{Mode: "inline", LoadPct: 50, P99: 1}, {Mode: "inline", LoadPct: 100, P99: 30},
		{Mode: "blitz", LoadPct: 50, P99: 0.8}, {Mode: "blitz", LoadPct: 100, P99: 2, RejectedPct: 10},
		{Mode: "other", LoadPct: 50, P99: 0}, // no 200s: left out, no error
	}
	dir := t.TempDir()
	png, svg := filepath.Join(dir, "c.png"), filepath.Join(dir, "c.svg")
	if err := Draw(rows, "test", png, svg); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(png)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("PNG: %v, starts %q", err, b[:min(8, len(b))])
	}
	b, err = os.ReadFile(svg)
	if err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("SVG: %v", err)
	}
}

func TestDrawRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	if err := Draw(nil, "x", filepath.Join(dir, "a.png")); err == nil {
		t.Error("no rows: no error")
	}
	rows := []loadgen.Row{{Mode: "inline", LoadPct: 50, P99: 1}}
	if err := Draw(rows, "x", filepath.Join(dir, "a.gif")); err == nil {
		t.Error(".gif: no error")
	}
	if err := Draw(rows, "x"); err == nil {
		t.Error("no path: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "a.png")); err == nil {
		t.Error("a failed Draw wrote a file")
	}
}
