// Command release tags the repository's published modules together and
// builds the module proxy directory that CI resolves them from before they
// are tagged. RELEASING.md is the procedure; this is its tool.
//
// The published modules are the library (the repository root,
// github.com/blitz-go/blitz, with par, errgroup and the other packages
// under it) and blitzprom. A release tags both at one commit, as v1.2.3 and
// blitzprom/v1.2.3. bench and examples are modules for working in this
// repository (a benchmark suite and runnable servers that pull in peer
// libraries, plotting and load generators); nobody imports them, so they
// are not tagged, and neither is this tool's module.
//
// The version every module of the repository requires of a published one
// is kept in one place, the file VERSION beside this command: the latest
// release, or the first one before there is any. Usage, from the
// repository root:
//
//	go run ./internal/release check
//	go run ./internal/release bump v0.2.0
//	go run ./internal/release tag -n
//	go run ./internal/release tag
//	go run ./internal/release proxy -o DIR [-rev HEAD] [-version V]
//
// check verifies that every go.mod of the repository requires the
// published modules at VERSION and has no replace directive (development
// goes through go.work), and that go.work uses every module and replaces
// VERSION of each published one by its directory. bump writes a new
// VERSION and rewrites those requires and replace lines. tag checks that
// the tree is clean and committed and tags the published modules at HEAD;
// -n prints the tags and creates none. proxy writes the published modules
// at a commit, as a release would publish them, into DIR in the layout of
// a file-based GOPROXY (GOPROXY=file://DIR): $module/@v/list,
// $version.info, .mod and .zip, the zips made by golang.org/x/mod/zip.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

const usage = `usage:
	release check
	release bump vX.Y.Z
	release tag [-n]
	release proxy -o DIR [-rev REV] [-version vX.Y.Z]
run from inside the repository: go run ./internal/release COMMAND`

// run runs the command line args (without the program name), writing what
// it reports to out.
func run(args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	cmd, args := args[0], args[1:]
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(out)
	var dryRun *bool
	var outDir, rev, version *string
	switch cmd {
	case "tag":
		dryRun = fs.Bool("n", false, "print the tags, create none")
	case "proxy":
		outDir = fs.String("o", "", "the directory to write (required)")
		rev = fs.String("rev", "HEAD", "the commit to publish")
		version = fs.String("version", "", "the version to publish it as (default: VERSION)")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	r, err := openRepo(".")
	if err != nil {
		return err
	}
	switch {
	case cmd == "check" && fs.NArg() == 0:
		v, err := r.version()
		if err != nil {
			return err
		}
		if err := r.check(v); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s: every module requires the published modules at it, with no replace; go.work replaces it by the work tree\n", v)
		return nil
	case cmd == "bump" && fs.NArg() == 1:
		return r.bump(fs.Arg(0), out)
	case cmd == "tag" && fs.NArg() == 0:
		return r.tag(*dryRun, out)
	case cmd == "proxy" && fs.NArg() == 0 && *outDir != "":
		v := *version
		if v == "" {
			if v, err = r.version(); err != nil {
				return err
			}
		}
		return r.proxy(*outDir, *rev, v, out)
	}
	return errors.New(usage)
}
