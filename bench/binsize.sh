#!/usr/bin/env bash
# The release binaries' size per dependency (issue #45): builds each of
# mcpsnoop and mcpsnoop-shim (or the commands named) as
# GoReleaser does (.goreleaser.yaml: CGO_ENABLED=0, -trimpath, -s -w), and
# again keeping the symbol table (-w only; the same text, rodata and data),
# and runs bench/binsize on it: per module, the bytes of its text, rodata
# and data symbols (the main module per top-level package), its share of
# the runtime's function tables, and the LOAD segments both builds map.
# Usage:
#   bench/binsize.sh [mcpsnoop] [mcpsnoop-shim]   (GOOS/GOARCH from the environment; ELF targets)
# Set BENCH_DIR to keep the binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${BENCH_DIR:-$(mktemp -d)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
export CGO_ENABLED=0 GOFLAGS=-mod=readonly
GOOS= GOARCH= go build -o "$work/binsize" ./bench/binsize
cmds=("$@")
[ ${#cmds[@]} -gt 0 ] || cmds=(mcpsnoop mcpsnoop-shim)
for cmd in "${cmds[@]}"; do
	echo "== $cmd"
	go build -trimpath -ldflags '-s -w' -o "$work/$cmd" "./cmd/$cmd"
	go build -trimpath -ldflags '-w' -o "$work/$cmd-symbols" "./cmd/$cmd"
	"$work/binsize" -bin "$work/$cmd-symbols" -pkg "./cmd/$cmd" -release "$work/$cmd"
done
