#!/usr/bin/env bash
# The published modules as a user gets them, checked without the network.
# Usage: .ci/published.sh [-w] MODULE_DIR... (.ci/run passes the modules
# that require the published ones). With -w it writes what `go mod tidy`
# would to each module's go.mod and go.sum (the way to tidy them: plain
# `go mod tidy` there looks for the untagged version on the network), and
# checks the rest.
#
# A release tags the root module and blitzprom together (RELEASING.md,
# internal/release). The other modules require them at the version in
# internal/release/VERSION, which no module proxy has until it is tagged.
# In the repository go.work reaches it, but `go mod tidy` ignores go.work,
# and so does every user. So this script publishes HEAD at that version
# into a directory laid out as a module proxy (go run ./internal/release
# proxy: $module/@v/list, .info, .mod, .zip, the zips made by
# golang.org/x/mod/zip) and checks against it:
#
#  1. each module given is tidy: `go mod tidy` into a copy of its go.mod
#     and go.sum (-modfile) changes nothing, except that it adds the
#     checksums of the repository's own modules. go.sum files never hold
#     those: the checksum of a version not yet tagged is that of HEAD's
#     files and changes with every commit of the root.
#  2. a user's module outside the repository (a copy of
#     internal/release/testdata/user) that requires the root and blitzprom
#     by version, with no replace and no go.work, and imports blitz, par
#     and blitzprom: go mod tidy, go vet, go build, go test, go run.
#
# Every go command below runs with GOWORK=off (a user has no go.work),
# GOTOOLCHAIN=local (no toolchain download) and a module cache of its own
# (GOMODCACHE), removed at the end: a module cache never fetches a version
# it holds again, so the shared cache would keep an earlier HEAD's build of
# the version. Two passes:
#
#   fetch    GOPROXY = the local proxy, then the shared module cache's
#            download directory (a module cache is laid out as a proxy too),
#            then the usual GOPROXY; the checksum database as usual, but
#            not for our own modules (GONOSUMDB), which it cannot know.
#            Runs the tidies only, to fill a first cache with every
#            third-party module the checks need: the earlier steps of
#            .ci/run have downloaded nearly all of them, and the network is
#            used only for the rest (on a clean machine: a few go.mod files).
#   offline  GOPROXY = the local proxy, then the first cache's download
#            directory, and nothing else: no network. GOSUMDB=off: our
#            modules are in no checksum database, and every third-party
#            module was checked in the fetch pass. A second, empty cache:
#            our modules come from the local proxy's files again. Runs the
#            checks.
set -euo pipefail
cd "$(dirname "$0")/.."
write=false
if [ "${1:-}" = -w ]; then write=true; shift; fi
[ $# -gt 0 ] || { echo "usage: $0 [-w] MODULE_DIR..." >&2; exit 2; }

root=$(awk '$1 == "module" { print $2; exit }' go.mod) # github.com/blitz-go/blitz
version=$(cat internal/release/VERSION)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go run ./internal/release proxy -o "$tmp/proxy" -version "$version"

shared=$(go env GOMODCACHE)
usual=$(go env GOPROXY)
goflags="$(go env GOFLAGS) -modcacherw" # -modcacherw: rm -rf removes the caches
export GOWORK=off GOTOOLCHAIN=local GOFLAGS="$goflags"

fetch() {
  GOMODCACHE="$tmp/cache-fetch" GONOSUMDB="$root" \
    GOPROXY="file://$tmp/proxy,file://$shared/cache/download,$usual" "$@"
}
offline() {
  GOMODCACHE="$tmp/cache" GOSUMDB=off \
    GOPROXY="file://$tmp/proxy,file://$tmp/cache-fetch/cache/download" "$@"
}

# tidy RUNNER DIR: go mod tidy of the module in DIR into a copy of its
# go.mod and go.sum under $tmp/tidy/DIR.
tidy() {
  local run=$1 m=$2 out="$tmp/tidy/$2"
  mkdir -p "$out"
  cp "$m/go.mod" "$out/go.mod"
  if [ -f "$m/go.sum" ]; then cp "$m/go.sum" "$out/go.sum"; else : >"$out/go.sum"; fi
  (cd "$m" && "$run" go mod tidy -modfile="$out/go.mod")
}

# user DIR: a user's module in DIR, requiring the published modules by
# version; nothing else in its go.mod.
user() {
  mkdir -p "$1"
  cp internal/release/testdata/user/*.go "$1/"
  (cd "$1" && go mod init example.com/user >/dev/null 2>&1 &&
    go mod edit -go=1.24.0 -require="$root@$version" -require="$root/blitzprom@$version")
}

echo "--- fetch: third-party modules the checks need"
for m in "$@"; do tidy fetch "$m"; done
user "$tmp/fetch-user"
(cd "$tmp/fetch-user" && fetch go mod tidy)

echo "--- offline: each module tidy against the published modules"
own="^${root//./\\.}(/[^ ]*)? " # a go.sum line of one of our modules
for m in "$@"; do
  tidy offline "$m"
  if $write; then
    cp "$tmp/tidy/$m/go.mod" "$m/go.mod"
    grep -Ev "$own" "$tmp/tidy/$m/go.sum" >"$m/go.sum" || true
  fi
  diff -u "$m/go.mod" "$tmp/tidy/$m/go.mod"
  if grep -E "$own" "$m/go.sum"; then
    echo "$m/go.sum holds the lines above, of this repository's modules: remove them"
    exit 1
  fi
  { grep -Ev "$own" "$tmp/tidy/$m/go.sum" || true; } | diff -u "$m/go.sum" -
  echo "$m: tidy"
done

echo "--- offline: a user's module requiring $root@$version and $root/blitzprom@$version"
u="$tmp/user"
user "$u"
cd "$u"
offline go mod tidy
grep -q '^replace' go.mod && { echo "the user's go.mod has a replace"; exit 1; }
cat go.mod
offline go vet ./...
offline go build ./...
offline go test -count=1 ./...
offline go run .
# The versions the build used are the published ones, from the local proxy.
offline go list -m -f '{{.Path}} {{.Version}} {{.Dir}}' "$root" "$root/blitzprom" |
  while read -r path v dir; do
    [ "$v" = "$version" ] || { echo "$path: $v, want $version"; exit 1; }
    case "$dir" in "$tmp/cache/"*) ;; *) echo "$path from $dir, not from the local proxy"; exit 1 ;; esac
  done
echo "published modules: ok"
