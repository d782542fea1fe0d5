package pkg

// The partner of this file is other.go, next to it; the layout is in
// docs/guide.md, from the root, and the per-arch files are present_*.go.
// A file that was removed: gone.go. One in another directory: docs/lost.md.
// Another project's file is cited by URL, https://example.com/src/job.rs.go,
// and the string below is not a comment.
var _ = "nothere.go" // but this comment names missing_too.txt
