#!/usr/bin/env bash
# Footprint of one stdio shim beside the reference tool (issue #45): the
# shim clients run (mcpsnoop-shim, the binary `mcpsnoop wrap` writes into
# their configs), the reference, and mcpsnoop itself running as the shim;
# peak
# RSS of the shim, of the helper processes it starts (our supervisor) and
# their sum; start-up (spawn of the shim to the server's first instruction)
# and time to the initialize response; CPU time of the whole tree. Each
# tool, and the server alone, runs RUNS times interleaved; bench/footprint
# prints medians [min-max] side by side, the ratios, and whether the goals
# (RSS sum within 1.25x of the reference, start-up within 5 ms of it) are met.
# Usage:
#   bench/footprint.sh [footprint flags]     e.g. -runs 15 -json /tmp/fp.json
# Environment:
#   REF=path      the reference binary; else it is built with `go install`
#                 from its module at REF_VERSION, else taken from its npm
#                 package at that version (integrity checked against the
#                 registry's); else the script says to set REF.
#   REF_VERSION   default 0.22.0
#   OURS=path     measure this mcpsnoop-shim instead of building the clone's
#                 (built here as releases are: .goreleaser.yaml's flags)
#   FULL=path     likewise for the mcpsnoop binary (the third column)
#   BENCH_DIR     keep the work folder (binaries, results)
# Linux only: the figures come from /proc. Needs Go; npm for the fallback.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(uname -s)" != Linux ]; then
	echo "bench/footprint.sh: peak RSS is read from /proc (VmHWM of the shim and each process under it) and start-up with CLOCK_MONOTONIC: Linux only; nothing measured on $(uname -s)" >&2
	exit 0
fi
ref_version=${REF_VERSION:-0.22.0}
work=${BENCH_DIR:-$(mktemp -d)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"

# Ours, as GoReleaser builds them (.goreleaser.yaml: env, flags, ldflags).
build() {
	CGO_ENABLED=0 GOFLAGS=-mod=readonly go build -trimpath \
		-ldflags "-s -w -X main.version=bench -X main.commit=$(git rev-parse HEAD 2>/dev/null || echo none)" \
		-o "$work/bin/$1" "./cmd/$1"
	echo "$work/bin/$1"
}
ours=${OURS:-}
[ -n "$ours" ] || ours=$(build mcpsnoop-shim)
full=${FULL:-}
[ -n "$full" ] || full=$(build mcpsnoop)
go build -o "$work/bin/footprint" ./bench/footprint

# The reference: REF, else its Go module, else its npm package.
ref=${REF:-}
if [ -z "$ref" ]; then
	if GOBIN="$work/ref" GOFLAGS= CGO_ENABLED=0 go install -trimpath -ldflags '-s -w' \
		"github.com/kerlenton/mcpsnoop/cmd/mcpsnoop@v$ref_version" 2>"$work/ref-go.err"; then
		ref=$work/ref/mcpsnoop
		echo "reference: built from github.com/kerlenton/mcpsnoop@v$ref_version" >&2
	else
		echo "reference: go install failed ($(tail -1 "$work/ref-go.err")); trying npm" >&2
		ref=$(bench/fetch-ref-npm.sh "$ref_version" "$work/ref") || {
			echo "bench/footprint.sh: cannot get the reference tool (mcpsnoop $ref_version, github.com/kerlenton/mcpsnoop) from the Go module proxy or npm; set REF=path/to/its/binary" >&2
			exit 2
		}
	fi
fi
"$work/bin/footprint" "$@" ours="$ours" reference="$ref" mcpsnoop="$full"
