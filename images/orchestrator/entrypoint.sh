#!/usr/bin/env bash
# The orchestrator container's entry, run by tini. Before `agentcage serve` it checks what the
# deployment must hand the container and says what to change when something is missing: the
# Staging Directory mounted at the very path the engine resolves on the host, a docker socket this
# uid may use, readable secret files. Then the stand-in model's image in stand-in mode
# (AGENTCAGE_STAND_IN=1, which adds --stand-in), kept sessions (AGENTCAGE_SESSIONS=1, the default, adds --sessions),
# webhooks to private addresses (AGENTCAGE_ALLOW_PRIVATE_CALLBACKS=1 adds --allow-private-callbacks), `agentcage doctor` (AGENTCAGE_DOCTOR=0 skips it),
# and exec: serve takes this process's place. Any other command is exec'd as given, with none of this.
set -euo pipefail

readonly SECRETS=/run/secrets
readonly SOCKET=/var/run/docker.sock

say() { printf 'agentcage-orchestrator: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

if [[ "${1:-}" != agentcage || "${2:-}" != serve ]]; then exec "$@"; fi

# flag NAME DEFAULT: the variable's value (DEFAULT when unset or empty), which must be 0 or 1.
flag() {
  local value="${!1:-$2}"
  [[ "$value" == 0 || "$value" == 1 ]] || die "$1=${value} is neither 1 (on) nor 0 (off); set one of those in .env"
  printf '%s' "$value"
}
stand_in="$(flag AGENTCAGE_STAND_IN 0)"
sessions="$(flag AGENTCAGE_SESSIONS 1)"
private_callbacks="$(flag AGENTCAGE_ALLOW_PRIVATE_CALLBACKS 0)"
doctor="$(flag AGENTCAGE_DOCTOR 1)"
uid="$(id -u)"

# Compose binds a secret's file as it is on the host, and compose.yaml binds an empty file for
# a secret the operator did not name. A variable set in .env wins over its secret file.
# secret_text NAME: the text of /run/secrets/NAME, "" when there is none.
secret_text() {
  local file="${SECRETS}/$1"
  [[ -e "$file" ]] || return 0
  [[ -r "$file" ]] || die "the secret ${file} is not readable by uid ${uid}; on the host, give the file it comes" \
    "from to that uid (chown ${uid} FILE && chmod 0400 FILE)"
  printf '%s' "$(<"$file")"
}
text="$(secret_text agentcage_token)"
if [[ -z "${AGENTCAGE_TOKEN:-}" && -n "$text" ]]; then export AGENTCAGE_TOKEN_FILE="${SECRETS}/agentcage_token"; fi
for variable in CLAUDE_CODE_OAUTH_TOKEN ANTHROPIC_API_KEY OPENAI_API_KEY CODEX_API_KEY; do
  text="$(secret_text "${variable,,}")"
  if [[ -z "${!variable:-}" && -n "$text" ]]; then export "${variable}=${text}"; fi
done
unset text

dir="${AGENTCAGE_RUNTIME_DIR:-}"
[[ -n "$dir" ]] || die "AGENTCAGE_RUNTIME_DIR is not set; set it in .env to an absolute directory of the host" \
  "(compose.yaml mounts it into this container at the same path)"
[[ "$dir" == /* ]] || die "AGENTCAGE_RUNTIME_DIR=${dir} is not absolute; write the host directory's absolute path"
mountpoint -q "$dir" || die "AGENTCAGE_RUNTIME_DIR=${dir} is not mounted into this container; mount the host's ${dir}" \
  "at the same path (compose.yaml: \${AGENTCAGE_RUNTIME_DIR}:\${AGENTCAGE_RUNTIME_DIR}): the engine resolves a Run's mounts on the host"
[[ -d "$dir" && -w "$dir" && -x "$dir" ]] || die "AGENTCAGE_RUNTIME_DIR=${dir} is not a directory uid ${uid} can write;" \
  "on the host: install -d -o ${uid} -g $(id -g) -m 0700 ${dir}"

if [[ -z "${DOCKER_HOST:-}" ]]; then
  [[ -S "$SOCKET" ]] || die "no docker socket at ${SOCKET}; mount the engine's socket there (compose.yaml does, from DOCKER_SOCKET)"
  if [[ ! -r "$SOCKET" || ! -w "$SOCKET" ]]; then
    gid="$(stat -c %g "$SOCKET")"
    die "uid ${uid} (groups $(id -G)) cannot use ${SOCKET}, which belongs to group ${gid}; set DOCKER_GID=${gid}" \
      "in .env (compose.yaml adds that group to this container)"
  fi
fi

args=("$@")
if [[ "$stand_in" == 1 ]]; then
  case "${AGENTCAGE_NETWORK_POLICY:-none}" in
    model | allowlist) say "AGENTCAGE_STAND_IN=1: every agent talks to the stand-in model behind the egress proxy" ;;
    *)
      say "AGENTCAGE_STAND_IN=1: every agent talks to the stand-in model; building or reusing its image"
      node /app/scripts/agentcage-build-images.js stand-in >&2 ||
        die "the stand-in model's image could not be built (the build's output is above)"
      ;;
  esac
  args+=(--stand-in)
fi
if [[ "$sessions" == 1 ]]; then args+=(--sessions); fi
if [[ "$private_callbacks" == 1 ]]; then args+=(--allow-private-callbacks); fi
if [[ "$doctor" == 1 ]]; then
  agentcage doctor >&2 || die "agentcage doctor found a problem (above); fix it, or set AGENTCAGE_DOCTOR=0 to start without its checks"
fi
exec "${args[@]}"
