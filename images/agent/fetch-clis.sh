#!/usr/bin/env bash
# Runs in the agent image's fetch stage: `npm pack` the pinned claude and codex packages, check
# each tarball's sha512 against its pinned integrity, and leave only the native binaries in /out
# (claude; codex with its code-mode host and its ripgrep).
# Invariants: no install script runs (--ignore-scripts, and nothing is installed); a tarball
# whose integrity does not match fails the build; a build argument left empty takes its value
# from clis.env, so `docker build images/agent` alone builds the pinned CLIs. A build-ca.crt in the
# context (CA certificates of a TLS-inspecting proxy) is trusted by npm here and goes no further.
set -euo pipefail

readonly OUT=/out
say() { printf 'fetch-clis: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# Build arguments win; clis.env fills what they leave empty.
declare -A given=(
  [CLAUDE_VERSION]="${CLAUDE_VERSION:-}" [CLAUDE_INTEGRITY]="${CLAUDE_INTEGRITY:-}"
  [CODEX_VERSION]="${CODEX_VERSION:-}" [CODEX_INTEGRITY]="${CODEX_INTEGRITY:-}"
)
# shellcheck source=clis.env
source ./clis.env
for name in "${!given[@]}"; do
  if [[ -n "${given[$name]}" ]]; then printf -v "$name" '%s' "${given[$name]}"; fi
  [[ -n "${!name:-}" ]] || die "${name} is empty; pass it as a build argument or set it in clis.env"
done

if [[ -s build-ca.crt ]]; then export NODE_EXTRA_CA_CERTS="$PWD/build-ca.crt"; fi

# npm's integrity form: "sha512-" and the base64 of the raw digest.
integrity_of() {
  printf 'sha512-%s' "$(sha512sum <"$1" | cut -d' ' -f1 | tr a-f A-F | basenc --base16 -d | base64 -w0)"
}

# fetch SPEC TARBALL INTEGRITY: leaves a verified ./TARBALL.
fetch() {
  local spec="$1" tarball="$2" want="$3" got
  say "npm pack ${spec}"
  npm pack --ignore-scripts --cache /tmp/npm-cache "$spec" >npm-pack.log 2>&1 || {
    tail -n 20 npm-pack.log >&2
    die "npm pack ${spec} failed (last lines above); check that the build can reach the npm registry"
  }
  [[ -f "$tarball" ]] || die "npm pack ${spec} did not produce ${tarball}"
  got="$(integrity_of "$tarball")"
  [[ "$got" == "$want" ]] || die "${spec} has integrity ${got}, not the pinned ${want}; if the" \
    "version was bumped on purpose, pin its integrity (npm view ${spec} dist.integrity) in clis.env"
  say "${spec}: integrity verified"
}

# extract TARBALL MEMBER NAME: installs MEMBER of TARBALL as $OUT/bin/NAME, mode 0755.
extract() {
  local tarball="$1" member="$2" name="$3"
  mkdir -p unpacked "$OUT/bin"
  tar -xzf "$tarball" -C unpacked --no-same-owner "$member" || die "${tarball} has no ${member}"
  install -m 0755 "unpacked/${member}" "$OUT/bin/${name}"
}

readonly CLAUDE_TARBALL="anthropic-ai-claude-code-linux-x64-${CLAUDE_VERSION}.tgz"
readonly CODEX_TARBALL="openai-codex-${CODEX_VERSION}-linux-x64.tgz"
readonly CODEX_VENDOR="package/vendor/x86_64-unknown-linux-musl"

fetch "@anthropic-ai/claude-code-linux-x64@${CLAUDE_VERSION}" "$CLAUDE_TARBALL" "$CLAUDE_INTEGRITY"
fetch "@openai/codex@${CODEX_VERSION}-linux-x64" "$CODEX_TARBALL" "$CODEX_INTEGRITY"
extract "$CLAUDE_TARBALL" package/claude claude
extract "$CODEX_TARBALL" "${CODEX_VENDOR}/bin/codex" codex
# codex runs its "code mode" through this host, looked up beside its own executable; without it
# every turn on a model that uses code mode starts with an error item.
extract "$CODEX_TARBALL" "${CODEX_VENDOR}/bin/codex-code-mode-host" codex-code-mode-host
# codex's own launcher puts its bundled ripgrep on PATH; the model's shell commands expect `rg`.
extract "$CODEX_TARBALL" "${CODEX_VENDOR}/codex-path/rg" rg

# What the final stage checks `--version` against, and keeps as a record of what it holds.
mkdir -p "$OUT/share"
printf 'CLAUDE_VERSION=%s\nCODEX_VERSION=%s\n' "$CLAUDE_VERSION" "$CODEX_VERSION" >"$OUT/share/clis.env"
rm -rf unpacked /tmp/npm-cache ./*.tgz npm-pack.log
