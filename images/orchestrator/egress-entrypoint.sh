#!/usr/bin/env bash
# The egress proxy's container entry (compose's `egress` service), run by tini. It makes the control
# secret on the volume it shares with the orchestrator alone (once: a restart keeps it), unless the
# runtime writes it on stdin (AGENTCAGE_EGRESS_CONTROL_SECRET_STDIN=1: no volume, the control socket
# on this container's own tmpfs, reached by an exec of bridge.js), and in
# stand-in mode (AGENTCAGE_STAND_IN=1) runs the stand-in model inside this container on loopback,
# as the proxy's only "internet". Then the proxy takes this process's place.
set -euo pipefail

say() { printf 'agentcage-egress: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

control="$(dirname "${AGENTCAGE_EGRESS_CONTROL_SOCKET:-/run/agentcage/egress.sock}")"
if [[ "${AGENTCAGE_EGRESS_CONTROL_SECRET_STDIN:-0}" == 1 ]]; then
  # The proxy reads the secret from this process's stdin, which it inherits; the socket's directory is this uid's alone.
  mkdir -p -m 0700 "$control" || die "${control} cannot be made; put AGENTCAGE_EGRESS_CONTROL_SOCKET on a tmpfs uid $(id -u) can write"
else
  secret="${AGENTCAGE_EGRESS_CONTROL_SECRET_FILE:-${control}/control-secret}"
  [[ -d "$control" && -w "$control" ]] || die "${control} is not a directory uid $(id -u) can write; mount the volume the orchestrator shares there"
  if [[ ! -s "$secret" ]]; then
    (umask 077 && head -c 32 /dev/urandom | base64 | tr -d '\n=' >"${secret}.new" && mv "${secret}.new" "$secret")
  fi
  export AGENTCAGE_EGRESS_CONTROL_SECRET_FILE="$secret"
fi

stand_in="${AGENTCAGE_STAND_IN:-0}"
[[ "$stand_in" == 0 || "$stand_in" == 1 ]] || die "AGENTCAGE_STAND_IN=${stand_in} is neither 1 (on) nor 0 (off); set one of those in .env"
if [[ "$stand_in" == 1 ]]; then
  say "AGENTCAGE_STAND_IN=1: the model behind this proxy is the stand-in, on this container's loopback"
  SCENARIO=plain HOST=127.0.0.1 PORT=8080 node /app/dist-tools/test/stand-in/main.js </dev/null >/dev/null &
  export AGENTCAGE_EGRESS_UPSTREAM_CLAUDE=http://127.0.0.1:8080 AGENTCAGE_EGRESS_UPSTREAM_CODEX=http://127.0.0.1:8080
fi
exec node /app/dist/egress/main.js
