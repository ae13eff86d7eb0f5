#!/usr/bin/env bash
# Validate .goreleaser.yaml with GoReleaser itself, at the version the release
# workflow (.github/workflows/release.yml) pins. GoReleaser is built from the Go
# module proxy into a temporary GOBIN: it is never added to go.mod.
#
#   scripts/goreleaser-check.sh           goreleaser check (CI runs this: about 3 minutes
#                                         on a cold module cache, 15 s on a warm one)
#   scripts/goreleaser-check.sh --build   also a snapshot release into a temporary dist
#                                         directory: every target built and archived,
#                                         checksums written (about 5 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
export GOFLAGS=-buildvcs=false

GORELEASER_VERSION=v2.15.1 # builds with Go 1.26; newer GoReleaser needs Go 1.27

build=false
case "${1:-}" in
  "") ;;
  --build) build=true ;;
  *) echo "usage: scripts/goreleaser-check.sh [--build]" >&2; exit 4 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "goreleaser-check: installing github.com/goreleaser/goreleaser/v2@${GORELEASER_VERSION} into a temporary GOBIN"
GOBIN="$tmp/bin" go install "github.com/goreleaser/goreleaser/v2@${GORELEASER_VERSION}"
"$tmp/bin/goreleaser" --version | grep -E '^GitVersion:' || true

"$tmp/bin/goreleaser" check

if $build; then
  # A copy of the committed tree, so dist/ and GoReleaser's git reads never touch
  # the work tree.
  git worktree add --detach -q "$tmp/src" HEAD
  trap 'git worktree remove --force "$tmp/src" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
  (cd "$tmp/src" && "$tmp/bin/goreleaser" release --snapshot --clean --skip=sbom,publish)
  "$tmp/src/dist/bundle_linux_amd64_v1/bundle" version
  ls "$tmp/src/dist"
fi
echo "goreleaser-check: .goreleaser.yaml is valid"
