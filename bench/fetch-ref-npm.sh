#!/usr/bin/env bash
# bench/fetch-ref-npm.sh VERSION DIR: fetch the reference tool's release
# binary (the previous public mcpsnoop, github.com/kerlenton/mcpsnoop) from
# its npm package @mcpsnoop/<os>-<cpu>@VERSION into DIR, check the tarball
# against the registry's dist.integrity, and print the binary's path.
# Used by bench/footprint.sh when the Go module proxy will not serve it.
set -euo pipefail
version=$1 dir=$2
case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) echo "no npm package for $(uname -s)" >&2; exit 1 ;; esac
case "$(uname -m)" in x86_64 | amd64) cpu=x64 ;; aarch64 | arm64) cpu=arm64 ;; *) echo "no npm package for $(uname -m)" >&2; exit 1 ;; esac
pkg=@mcpsnoop/$os-$cpu@$version
command -v npm >/dev/null || { echo "npm not found" >&2; exit 1; }
want=$(npm view "$pkg" dist.integrity 2>/dev/null) || { echo "$pkg: not on the npm registry" >&2; exit 1; }
mkdir -p "$dir"
tgz=$(cd "$dir" && npm pack --silent "$pkg" 2>/dev/null | tail -1)
got=sha512-$(node -e 'const c=require("crypto"),f=require("fs");process.stdout.write(c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$dir/$tgz")
if [ "$got" != "$want" ]; then
	echo "$pkg: tarball integrity $got is not the registry's $want" >&2
	exit 1
fi
tar -xzf "$dir/$tgz" -C "$dir" package/bin/mcpsnoop
echo "reference: $pkg from npm (integrity $want)" >&2
echo "$dir/package/bin/mcpsnoop"
