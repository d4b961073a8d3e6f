#!/usr/bin/env bash
# The action's install step: put the mcpsnoop release binary that matches
# the action's ref on the runner, verified, or say that it must be built.
#
# Which release: the `version` input when set (v1.2.3 or 1.2.3; "source"
# builds from the action's checkout instead); else the ref the action was
# pinned to, read from the action's folder (_actions/<owner>/<repo>/<ref>;
# github.action_ref is not dependable inside a composite action): a tag
# v1.2.3 names its release, and a commit hash the release whose tag points
# at that commit (git ls-remote --tags). A branch, a commit no release was
# made from, a fork without releases, or a local action (uses: ./) fall back
# to building from source.
#
# Verification: the archive's SHA-256 must match the release's
# checksums.txt, or the step fails (exit 2) and nothing is built in its
# place; where the GitHub CLI and a token are there, `gh attestation verify`
# must also accept the archive as built by the release workflow from that
# tag. The binary must then name the expected version (and, for a commit
# pin, that commit).
#
# Outputs (GITHUB_OUTPUT): path (the binary; empty when it must be built),
# version, source (release or build), commit (the pinned commit, for the
# build). Exit codes: 0 installed or building instead, 2 refused.
#
# Environment: INPUT_VERSION, GITHUB_ACTION_PATH, RUNNER_OS, RUNNER_ARCH,
# RUNNER_TEMP, GH_TOKEN; MCPSNOOP_RELEASE_BASE_URL replaces
# https://github.com (the tests serve a release from a loopback server).
#
# Kept to bash 3.2 (macOS runners).
set -euo pipefail

base="${MCPSNOOP_RELEASE_BASE_URL:-https://github.com}"
base="${base%/}"
default_repo="mcpsnoop/mcpsnoop"

say() { printf 'mcpsnoop install: %s\n' "$*"; }
refuse() {
  printf '::error title=mcpsnoop install::%s\n' "$*"
  exit 2
}
output() { printf '%s=%s\n' "$1" "$2" >>"${GITHUB_OUTPUT:-/dev/null}"; }

# build_instead: no release to install; the next steps build from source.
build_instead() {
  printf '::notice title=mcpsnoop::%s; building mcpsnoop from the action'"'"'s source instead\n' "$*"
  output path ""
  output source build
  output commit "$pinned_commit"
  exit 0
}

semver_re='^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$'
is_semver() { [[ $1 =~ $semver_re ]]; }

# The action's own checkout: <...>/_actions/<owner>/<repo>/<ref>.
repo="" ref=""
action_path="${GITHUB_ACTION_PATH:-}"
if [ -n "$action_path" ] && command -v cygpath >/dev/null 2>&1; then action_path=$(cygpath -u "$action_path"); fi
action_path="${action_path%/}"
case "$action_path" in
  */_actions/*/*/*)
    ref="${action_path##*/}"
    rest="${action_path%/*}"
    name="${rest##*/}"
    rest="${rest%/*}"
    owner="${rest##*/}"
    if [ "${rest%/*}" != "${rest}" ] && [ "${rest%/*}" = "${action_path%%/_actions/*}/_actions" ]; then
      repo="$owner/$name"
    else
      ref="" # a subfolder of an action, not this one's root
    fi
    ;;
esac

pinned_commit=""
tag="" explicit=""
requested="${INPUT_VERSION:-}"
requested="${requested#"${requested%%[![:space:]]*}"}"
requested="${requested%"${requested##*[![:space:]]}"}"
case "$requested" in
  '') ;;
  source) build_instead "version is \"source\"" ;;
  *)
    v="${requested#v}"
    is_semver "$v" || refuse "version must be a release (1.2.3 or v1.2.3) or \"source\", got \"$requested\""
    tag="v$v" explicit=1
    ;;
esac
if [ -z "$repo" ]; then
  repo="$default_repo"
fi

if [ -z "$tag" ]; then
  case "$ref" in
    '') build_instead "the action was not run from a release (uses: ./ or an unknown layout)" ;;
    v*)
      if is_semver "${ref#v}"; then tag="$ref"; else build_instead "the action's ref $ref is not a release tag"; fi
      ;;
    *)
      sha_re='^[0-9a-f]{40}$'
      if [[ $ref =~ $sha_re ]]; then
        pinned_commit="$ref"
        command -v git >/dev/null 2>&1 || build_instead "git is not installed, so the release of commit $ref cannot be looked up"
        refs=$(GIT_TERMINAL_PROMPT=0 git ls-remote --tags "$base/$repo.git" 2>/dev/null) ||
          build_instead "could not list the tags of $repo"
        # A lightweight tag's line names the commit; an annotated tag's
        # ^{} line does. The newest matching release tag wins.
        tag=""
        for t in $(printf '%s\n' "$refs" | awk -v sha="$ref" '$1 == sha { t = $2; sub(/^refs\/tags\//, "", t); sub(/\^\{\}$/, "", t); print t }' |
          sed -n 's/^v//p' | sort -t. -k1,1n -k2,2n -k3,3n); do
          if is_semver "$t"; then tag="v$t"; fi
        done
        [ -n "$tag" ] || build_instead "no release of $repo was made from commit $ref"
      else
        build_instead "the action's ref $ref is a branch or an unknown tag, not a release"
      fi
      ;;
  esac
fi
version="${tag#v}"

# The runner's platform, in the archives' words.
case "${RUNNER_OS:-}" in
  Linux) os=linux ;;
  macOS) os=darwin ;;
  Windows) os=windows ;;
  *) os="" ;;
esac
case "${RUNNER_ARCH:-}" in
  X64) arch=amd64 ;;
  ARM64) arch=arm64 ;;
  *) arch="" ;;
esac
if [ -z "$os" ] || [ -z "$arch" ]; then
  [ -z "$explicit" ] || refuse "mcpsnoop releases have no binary for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}"
  build_instead "mcpsnoop releases have no binary for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}"
fi
ext=tar.gz exe=mcpsnoop
if [ "$os" = windows ]; then ext=zip exe=mcpsnoop.exe; fi
asset="mcpsnoop_${version}_${os}_${arch}.${ext}"
url="$base/$repo/releases/download/$tag"

tmp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
if command -v cygpath >/dev/null 2>&1; then tmp=$(cygpath -u "$tmp"); fi
dir=$(mktemp -d "$tmp/mcpsnoop-$version.XXXXXX")

# fetch URL FILE: 0 fetched, 1 not there (404), 2 any other failure.
fetch() {
  local code
  local proto=(--proto '=https')
  if [ -n "${MCPSNOOP_RELEASE_BASE_URL:-}" ]; then proto=(); fi
  code=$(curl -sSL ${proto[@]+"${proto[@]}"} --retry 3 --retry-delay 1 --connect-timeout 10 --max-time 120 -o "$2" -w '%{http_code}' "$1") || {
    say "could not download $1 (curl exit $?)"
    return 2
  }
  case "$code" in
    200) return 0 ;;
    404) return 1 ;;
    *) say "$1 answered HTTP $code"; return 2 ;;
  esac
}

# missing WHAT: the release (or this platform's part of it) is not there.
missing() {
  [ -z "$explicit" ] || refuse "$*"
  build_instead "$*"
}

rc=0
fetch "$url/checksums.txt" "$dir/checksums.txt" || rc=$?
case "$rc" in
  0) ;;
  1) missing "$repo has no release $tag (no $url/checksums.txt)" ;;
  *) missing "could not download the checksums of $repo $tag" ;;
esac
want=$(awk -v f="$asset" '($2 == f || $2 == "*" f) && !done { print $1; done = 1 }' "$dir/checksums.txt")
[ -n "$want" ] || missing "$repo $tag has no $asset in its checksums.txt"
rc=0
fetch "$url/$asset" "$dir/$asset" || rc=$?
case "$rc" in
  0) ;;
  1) missing "$repo $tag lists $asset, but it is not there" ;;
  *) missing "could not download $asset of $repo $tag" ;;
esac

if command -v sha256sum >/dev/null 2>&1; then
  got=$(sha256sum "$dir/$asset" | awk '{ print $1 }')
else
  got=$(shasum -a 256 "$dir/$asset" | awk '{ print $1 }')
fi
if [ "$got" != "$want" ]; then
  refuse "$asset of $repo $tag has SHA-256 $got, but its checksums.txt says $want: refusing to install it"
fi
say "verified $asset against checksums.txt (sha256 $got)"

if command -v gh >/dev/null 2>&1 && [ -n "${GH_TOKEN:-}" ]; then
  # A commit pin binds the archive to that commit through the attestation
  # (signed by GitHub), not only to the tag, which could have been moved.
  source_args=(--source-ref "refs/tags/$tag")
  from="$tag"
  if [ -n "$pinned_commit" ]; then
    source_args+=(--source-digest "$pinned_commit")
    from="$tag at commit $pinned_commit"
  fi
  if ! gh attestation verify "$dir/$asset" --repo "$repo" \
    --signer-workflow "$repo/.github/workflows/release.yml" "${source_args[@]}"; then
    refuse "gh attestation verify did not accept $asset as built by $repo's release workflow from $from: refusing to install it"
  fi
  say "gh attestation verify: $asset was built by $repo's release workflow from $from"
else
  say "the GitHub CLI (with GH_TOKEN) is not available: $asset was verified against checksums.txt only"
fi

case "$ext" in
  tar.gz) tar -xzf "$dir/$asset" -C "$dir" "$exe" ;;
  zip)
    if command -v unzip >/dev/null 2>&1; then
      unzip -q -o "$dir/$asset" "$exe" -d "$dir"
    else
      # Windows' own tar (bsdtar) reads zip archives.
      "$(cygpath -u "${SYSTEMROOT:-C:\\Windows}")/System32/tar.exe" -xf "$dir/$asset" -C "$dir" "$exe"
    fi
    ;;
esac
bin="$dir/$exe"
chmod +x "$bin"

# The binary must be what the release says it is. What it says of itself is
# a sanity check (a binary can say anything): for a commit pin, the
# attestation above is what binds the archive to the commit.
said=$("$bin" version 2>&1) || refuse "$bin does not run: $said"
first=${said%%$'\n'*} # no pipe: head closing early would be SIGPIPE under pipefail
[ "$first" = "mcpsnoop $version" ] || refuse "the binary of $repo $tag says \"$first\", not \"mcpsnoop $version\": refusing it"
if [ -n "$pinned_commit" ]; then
  case "$said" in
    *"
commit $pinned_commit"*) ;;
    *) refuse "the binary of $repo $tag was not built from the pinned commit $pinned_commit: refusing it" ;;
  esac
fi

say "installed mcpsnoop $version ($os/$arch) from $repo $tag"
output path "$bin"
output version "$version"
output source release
output commit "$pinned_commit"
