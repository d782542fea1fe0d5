package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/mod/semver"
)

// tag tags every published module at HEAD with the version in versionFile
// (v1.2.3, blitzprom/v1.2.3), as annotated tags, and prints the command
// that pushes them; it pushes nothing itself. It refuses unless check
// passes, the work tree is clean (untracked files included: they would not
// be in the release) and none of the tags exists yet, with the version above
// every release tagged so far. With dryRun it prints the commit and the
// tags, then the same refusals, and creates nothing.
func (r *repo) tag(dryRun bool, out io.Writer) error {
	v, err := r.version()
	if err != nil {
		return err
	}
	head, err := r.git("rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return err
	}
	subject, err := r.git("show", "--no-patch", "--format=%s", head)
	if err != nil {
		return err
	}
	var tags []string
	for _, dir := range published {
		tags = append(tags, tagName(dir, v))
	}

	var problems []error
	if err := r.check(v); err != nil {
		problems = append(problems, err)
	}
	if status, err := r.git("status", "--porcelain"); err != nil {
		problems = append(problems, err)
	} else if status != "" {
		problems = append(problems, fmt.Errorf("the work tree has changes that would not be released:\n%s", status))
	}
	for _, t := range tags {
		if _, err := r.git("rev-parse", "--quiet", "--verify", "refs/tags/"+t); err == nil {
			problems = append(problems, fmt.Errorf("tag %s exists already", t))
		}
	}
	if last, err := r.lastRelease(); err != nil {
		problems = append(problems, err)
	} else if last != "" && semver.Compare(v, last) <= 0 {
		problems = append(problems, fmt.Errorf("%s is not above the last release %s: run release bump first", v, last))
	}

	if dryRun {
		fmt.Fprintf(out, "would tag %s (%s):\n", head[:12], subject)
		for _, t := range tags {
			fmt.Fprintf(out, "\t%s\n", t)
		}
		return errors.Join(problems...)
	}
	if err := errors.Join(problems...); err != nil {
		return err
	}
	for i, t := range tags {
		if _, err := r.git("tag", "--annotate", "--message", t, t, head); err != nil {
			// All or none: take back the tags made so far.
			for _, made := range tags[:i] {
				r.git("tag", "--delete", made)
			}
			return err
		}
		fmt.Fprintf(out, "tagged %s at %s\n", t, head[:12])
	}
	fmt.Fprintf(out, "push them together:\n\tgit push origin %s\n", strings.Join(tags, " "))
	return nil
}
