#!/usr/bin/env bash
# Fetches the pinned claude and codex CLIs (images/agent/clis.env) with `npm pack`, checks each
# tarball against its pinned sha512 integrity, extracts the one native binary of each, runs it
# with --version and prints the two binary paths (claude first, then codex), one a line.
# Invariants: a tarball whose integrity does not match is deleted and the script fails; a cached,
# verified tarball is never fetched again; no package install script ever runs.
# AGENTCAGE_CLI_TARBALLS may name a directory already holding the `npm pack` tarballs (same file
# names); they are copied from there instead of fetched, and verified all the same.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly SCRIPT_DIR
readonly CLIS_ENV="${SCRIPT_DIR}/../images/agent/clis.env"
readonly CACHE_DIR="${AGENTCAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentcage}/clis"
readonly VERSION_TIMEOUT_S=60

say() { printf 'fetch-agent-clis: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

[[ -r "$CLIS_ENV" ]] || die "cannot read ${CLIS_ENV}; run this script from an agentcage checkout"
# shellcheck source=../images/agent/clis.env
source "$CLIS_ENV"
for name in CLAUDE_VERSION CLAUDE_INTEGRITY CODEX_VERSION CODEX_INTEGRITY; do
  [[ -n "${!name:-}" ]] || die "${CLIS_ENV} does not set ${name}; add it as one NAME=value line"
done
command -v npm >/dev/null 2>&1 || die "npm is not on PATH; install Node.js 20 (npm comes with it)"

# npm's integrity form: "sha512-" and the base64 of the raw digest. Node hashes as a stream.
integrity_of() {
  node -e '
    const { createHash } = require("node:crypto");
    const hash = createHash("sha512");
    require("node:fs").createReadStream(process.argv[1])
      .on("data", (chunk) => hash.update(chunk))
      .on("end", () => process.stdout.write("sha512-" + hash.digest("base64")))
      .on("error", (error) => { console.error(error.message); process.exit(1); });
  ' "$1"
}

# fetch_verified SPEC TARBALL_NAME INTEGRITY: leaves a verified "$CACHE_DIR/TARBALL_NAME".
fetch_verified() {
  local spec="$1" name="$2" want="$3"
  local tarball="${CACHE_DIR}/${name}"
  if [[ -f "$tarball" ]]; then
    if [[ "$(integrity_of "$tarball")" == "$want" ]]; then
      say "${spec}: cached tarball verified"
      return 0
    fi
    say "${spec}: cached ${tarball} does not match its pinned integrity; fetching again"
    rm -f "$tarball"
  fi
  local staging
  staging="$(mktemp -d "${CACHE_DIR}/.fetch.XXXXXX")"
  if [[ -n "${AGENTCAGE_CLI_TARBALLS:-}" && -f "${AGENTCAGE_CLI_TARBALLS}/${name}" ]]; then
    say "${spec}: copying ${name} from AGENTCAGE_CLI_TARBALLS"
    cp "${AGENTCAGE_CLI_TARBALLS}/${name}" "${staging}/${name}"
  else
    say "${spec}: npm pack"
    (cd "$staging" && npm pack --ignore-scripts --silent "$spec" >/dev/null) ||
      { rm -rf "$staging"; die "npm pack ${spec} failed; check that npm can reach its registry"; }
  fi
  [[ -f "${staging}/${name}" ]] ||
    { rm -rf "$staging"; die "npm pack ${spec} did not produce ${name}"; }
  local got
  got="$(integrity_of "${staging}/${name}")"
  if [[ "$got" != "$want" ]]; then
    rm -rf "$staging"
    die "${spec}: integrity ${got} does not match the pinned ${want}; the tarball was deleted." \
      "If the version was bumped on purpose, pin its integrity in images/agent/clis.env"
  fi
  mv "${staging}/${name}" "$tarball"
  rmdir "$staging"
}

# extract TARBALL_NAME MEMBER DEST: DEST is the binary; re-extracted when the tarball is newer.
extract() {
  local tarball="${CACHE_DIR}/$1" member="$2" dest="$3"
  if [[ -x "$dest" && "$dest" -nt "$tarball" ]]; then return 0; fi
  local staging
  staging="$(mktemp -d "${CACHE_DIR}/.extract.XXXXXX")"
  tar -xzf "$tarball" -C "$staging" --no-same-owner "$member" ||
    { rm -rf "$staging"; die "${tarball} has no ${member}"; }
  mkdir -p "$(dirname "$dest")"
  chmod 0755 "${staging}/${member}"
  mv "${staging}/${member}" "$dest"
  touch "$dest"
  rm -rf "$staging"
}

check_version() {
  local binary="$1" want="$2" out
  # A scratch HOME keeps a first run from writing config into the caller's home.
  local scratch
  scratch="$(mktemp -d)"
  out="$(HOME="$scratch" DISABLE_AUTOUPDATER=1 timeout "$VERSION_TIMEOUT_S" "$binary" --version 2>&1)" ||
    { rm -rf "$scratch"; die "${binary} --version failed: ${out}"; }
  rm -rf "$scratch"
  [[ "$out" == *"$want"* ]] || die "${binary} --version printed '${out}', not version ${want}"
  # codex may print warnings before its version line; the version line is the last one.
  say "${out##*$'\n'}"
}

mkdir -p "$CACHE_DIR"

readonly CLAUDE_TARBALL="anthropic-ai-claude-code-linux-x64-${CLAUDE_VERSION}.tgz"
readonly CODEX_TARBALL="openai-codex-${CODEX_VERSION}-linux-x64.tgz"
readonly CLAUDE_BIN="${CACHE_DIR}/claude-${CLAUDE_VERSION}/claude"
readonly CODEX_BIN="${CACHE_DIR}/codex-${CODEX_VERSION}/codex"

fetch_verified "@anthropic-ai/claude-code-linux-x64@${CLAUDE_VERSION}" "$CLAUDE_TARBALL" "$CLAUDE_INTEGRITY"
fetch_verified "@openai/codex@${CODEX_VERSION}-linux-x64" "$CODEX_TARBALL" "$CODEX_INTEGRITY"
extract "$CLAUDE_TARBALL" package/claude "$CLAUDE_BIN"
extract "$CODEX_TARBALL" package/vendor/x86_64-unknown-linux-musl/bin/codex "$CODEX_BIN"
check_version "$CLAUDE_BIN" "$CLAUDE_VERSION"
check_version "$CODEX_BIN" "$CODEX_VERSION"

printf '%s\n%s\n' "$CLAUDE_BIN" "$CODEX_BIN"
