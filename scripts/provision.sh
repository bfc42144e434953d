#!/usr/bin/env bash
# Makes this machine able to run agentcage's tests and demo: a docker engine that answers,
# docker-compose, a static busybox, Debian's postgresql (the Run store's tests start a cluster of
# their own with it), the offline test image, and (unless AGENTCAGE_AGENT_IMAGES=0)
# the agent, stand-in and orchestrator images on a Debian base, and with --browser Debian's chromium
# for the console's browser tests. Runs first in `npm test` (with --browser), `npm start` and `npm run demo`.
# Invariants: idempotent and quick when everything is already there; installs and starts only as
# root; never skips silently — if the engine cannot be had, it says why and exits non-zero.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly SCRIPT_DIR
readonly STATE_DIR="${TMPDIR:-/tmp}"
readonly DOCKERD_LOG="${STATE_DIR}/agentcage-dockerd.log"
LOCK_FILE="${STATE_DIR}/agentcage-provision-$(id -u).lock"
readonly LOCK_FILE
readonly ENGINE_START_TIMEOUT_S=60
readonly LOCK_TIMEOUT_S=600
readonly BUSYBOX="${AGENTCAGE_BUSYBOX:-/bin/busybox}"

say() { printf 'provision: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

is_root() { [[ "$(id -u)" -eq 0 ]]; }
engine_answers() { command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; }
# A static binary is one the loader has nothing to do for; glibc's ldd exits non-zero on it.
is_static() { [[ -x "$1" ]] && ! ldd "$1" >/dev/null 2>&1; }

apt_updated=false
apt_install() {
  command -v apt-get >/dev/null 2>&1 ||
    die "cannot install $* without apt-get; install Debian's $* (or an equivalent) by hand"
  # fd 9 holds the provisioning lock; nothing started from here may inherit it.
  # apt-get update exits 0 when a fetch fails; --error-on=any makes a network blip an error here,
  # where three tries can ride it out, instead of "Unable to locate package" later.
  local try
  for try in 1 2 3; do
    if [[ "$apt_updated" == false ]]; then
      say "apt-get update"
      apt-get update -q --error-on=any >&2 9>&- && apt_updated=true
    fi
    if [[ "$apt_updated" == true ]]; then
      say "apt-get install $*"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >&2 9>&- && return 0
    fi
    say "apt-get failed (try ${try} of 3)"
    apt_updated=false
    sleep $((try * 5))
  done
  die "apt-get could not install $*; check this machine's apt sources and network"
}

ensure_busybox() {
  is_static "$BUSYBOX" && return 0
  is_root || die "no static busybox at ${BUSYBOX}; install Debian's busybox-static" \
    "(apt-get install busybox-static), or set AGENTCAGE_BUSYBOX to a static busybox binary"
  apt_install busybox-static
  is_static "$BUSYBOX" || die "busybox-static is installed but ${BUSYBOX} is missing or not static"
}

# The test image's small helpers are C compiled statically: cc and glibc's static libc.a.
ensure_static_cc() {
  if command -v cc >/dev/null 2>&1 && [[ -n "$(find /usr/lib -name libc.a -print -quit 2>/dev/null)" ]]; then return 0; fi
  is_root || die "no C compiler with a static libc for the test image's helpers; install Debian's gcc and libc6-dev"
  apt_install gcc libc6-dev
}

start_engine() {
  # The engine listens where the client will look: DOCKER_HOST if it names a unix socket,
  # else dockerd's default socket. An engine on another host cannot be started from here.
  local -a listen=()
  case "${DOCKER_HOST:-}" in
    "") ;;
    unix://*) listen=(-H "$DOCKER_HOST") ;;
    *) die "no docker engine answers at DOCKER_HOST=${DOCKER_HOST} ($(engine_error)); start that" \
         "engine, or unset DOCKER_HOST so a local one can be started" ;;
  esac

  command -v dockerd >/dev/null 2>&1 || die "no dockerd on PATH; install Debian's docker.io"
  remove_stale_pid_file
  mkdir -p "$STATE_DIR"
  say "starting dockerd${listen[*]:+ ${listen[*]}} (log: ${DOCKERD_LOG})"
  printf -- '--- %s: provision starts dockerd%s\n' "$(date -u +%FT%TZ)" "${listen[*]:+ ${listen[*]}}" >>"$DOCKERD_LOG"
  local log_start
  log_start="$(stat -c %s "$DOCKERD_LOG")"
  # setsid + nohup: its own session, so it outlives this script and a Ctrl-C of the caller.
  # -w keeps $! alive exactly as long as dockerd, whether or not setsid had to fork.
  setsid -w nohup dockerd "${listen[@]}" >>"$DOCKERD_LOG" 2>&1 </dev/null 9>&- &
  local pid=$! deadline=$((SECONDS + ENGINE_START_TIMEOUT_S))
  disown "$pid" 2>/dev/null || true

  until engine_answers; do
    if ! kill -0 "$pid" 2>/dev/null; then
      engine_answers && break
      say "dockerd exited before the engine answered; last lines of ${DOCKERD_LOG}:"
      tail -c "+$((log_start + 1))" "$DOCKERD_LOG" | tail -n 25 >&2 || true
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      say "the engine did not answer within ${ENGINE_START_TIMEOUT_S} s (dockerd left running as" \
        "pid ${pid}); last lines of ${DOCKERD_LOG}:"
      tail -c "+$((log_start + 1))" "$DOCKERD_LOG" | tail -n 25 >&2 || true
      exit 1
    fi
    sleep 0.5
  done
}

# A dockerd that was killed (a machine stopped without shutting it down) leaves its pid file, and a new dockerd
# refuses to start while it is there. Only a file whose pid is not a live dockerd is removed.
remove_stale_pid_file() {
  local pid_file=/var/run/docker.pid pid
  [[ -f "$pid_file" ]] || return 0
  pid="$(cat "$pid_file" 2>/dev/null || true)"
  if [[ "$pid" =~ ^[0-9]+$ ]] && [[ "$(cat "/proc/${pid}/comm" 2>/dev/null || true)" == dockerd ]]; then return 0; fi
  say "removing ${pid_file}, left by a dockerd (pid ${pid:-?}) that is no longer running"
  rm -f "$pid_file"
}

# docker's own last word on why it cannot reach the engine, for the error message.
engine_error() {
  command -v docker >/dev/null 2>&1 || { echo "no docker CLI on PATH"; return; }
  docker version --format '{{.Server.Version}}' 2>&1 >/dev/null | head -n 1 || true
}

ensure_engine() {
  engine_answers && return 0
  is_root || die "no docker engine answers ($(engine_error)); install Debian's docker.io" \
    "(apt-get install docker.io) and start dockerd, or point DOCKER_HOST at an engine"
  if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
    apt_install docker.io
    engine_answers && return 0 # the package may have started the engine itself
  fi
  start_engine
}

# compose.yaml's tests parse it and bring it up with Debian's docker-compose (1.29, Compose v1).
ensure_compose() {
  command -v docker-compose >/dev/null 2>&1 && return 0
  is_root || die "no docker-compose on PATH; install Debian's docker-compose (apt-get install docker-compose)"
  apt_install docker-compose
}

# The remote-engine tests make their TLS certificates (a CA, dockerd's, a client's) with openssl, and
# their ssh keys and agent with OpenSSH's client tools (ssh-keygen, ssh-agent, ssh-add).
ensure_remote_engine_tools() {
  command -v openssl >/dev/null 2>&1 && command -v ssh-agent >/dev/null 2>&1 && return 0
  is_root || die "no openssl or ssh-agent on PATH; install Debian's openssl and openssh-client (apt-get install openssl openssh-client)"
  apt_install openssl openssh-client
}

# gVisor's runsc, registered with the engine as the container runtime "runsc": the stronger
# sandbox an Agent Container can name (containerRuntime), and its test. Only for the local engine
# and as root, as the engine itself is installed here: anywhere else the test says what to do.
ensure_gvisor() {
  runtime_registered runsc && return 0
  if ! is_root || [[ -n "${DOCKER_HOST:-}" ]]; then
    say "gVisor's runsc is not registered with the engine; install it (apt-get install runsc) and add it to the engine's \"runtimes\""
    return 0
  fi
  command -v runsc >/dev/null 2>&1 || apt_install runsc
  local config=/etc/docker/daemon.json
  mkdir -p /etc/docker
  # Merged into what the file holds; dockerd reloads its runtimes on SIGHUP, no restart. runsc's
  # own --network=none: Debian's runsc (2022) refuses to start a container in the network
  # namespace of a host that is itself a container, whatever the container's network, without it.
  node -e '
    const fs = require("fs");
    const [path, runsc] = process.argv.slice(1);
    const config = fs.existsSync(path) ? JSON.parse(fs.readFileSync(path, "utf8") || "{}") : {};
    config.runtimes = { ...(config.runtimes ?? {}), runsc: { path: runsc, runtimeArgs: ["--network=none"] } };
    fs.writeFileSync(path, JSON.stringify(config, null, 2) + "\n");
  ' "$config" "$(command -v runsc)"
  say "registered runsc in ${config}; reloading dockerd"
  pkill -HUP -x dockerd || die "no dockerd to reload; restart the engine so it reads ${config}"
  local try
  for try in $(seq 1 50); do
    runtime_registered runsc && return 0
    sleep 0.2
  done
  die "dockerd did not take runsc from ${config}; restart the engine"
}

# The Postgres Run store's tests start a cluster of their own (test/support/postgres.ts) with the
# server's programs, which Debian keeps under /usr/lib/postgresql/<version>/bin, off PATH. Only the
# programs are needed: the package's own cluster, if its install started one, is not used.
postgres_installed() {
  command -v initdb >/dev/null 2>&1 || compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
}

ensure_postgres() {
  postgres_installed && return 0
  is_root || die "no Postgres server programs (initdb); install Debian's postgresql (apt-get install postgresql)"
  apt_install postgresql
  postgres_installed || die "postgresql is installed but no initdb was found under /usr/lib/postgresql/*/bin"
}

# The operator console's tests drive a real browser: Debian's chromium, never a downloaded one.
ensure_browser() {
  [[ -x /usr/bin/chromium ]] && return 0
  is_root || die "no /usr/bin/chromium for the console's browser tests; install Debian's chromium (apt-get install chromium)"
  apt_install chromium
  [[ -x /usr/bin/chromium ]] || die "chromium is installed but /usr/bin/chromium is missing"
}

runtime_registered() { docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q "\"$1\""; }

# The agent image (the real CLIs, pinned), the stand-in model's image and the orchestrator's
# (compose.yaml), each rebuilt only when its inputs changed. AGENTCAGE_AGENT_IMAGES=0 skips them,
# for a quick unit-only run.
build_agent_images() {
  if [[ "${AGENTCAGE_AGENT_IMAGES:-1}" == 0 ]]; then
    say "AGENTCAGE_AGENT_IMAGES=0: not building the agent, stand-in and orchestrator images"
    return 0
  fi
  local started=$SECONDS
  bash "${SCRIPT_DIR}/build-debian-base.sh"
  command -v node >/dev/null 2>&1 || die "node is not on PATH; install Node.js 20 to build the agent images"
  (
    cd "${SCRIPT_DIR}/.."
    npx --no-install tsc -p tsconfig.tools.json
    node dist-tools/scripts/build-image.js agent
    node dist-tools/scripts/build-image.js stand-in
    # The orchestrator image serves the console too: its files are built into dist/ first.
    npx --no-install tsc -p tsconfig.build.json
    npx --no-install vite build --config console/vite.config.ts
    node dist-tools/scripts/build-image.js orchestrator
  )
  say "agent, stand-in and orchestrator images ready in $((SECONDS - started)) s"
}

main() {
  # One provisioning at a time on this machine: a second caller waits, then finds it all done.
  if ! exec 9>"$LOCK_FILE"; then die "cannot open ${LOCK_FILE}; point TMPDIR at a writable directory"; fi
  flock -w "$LOCK_TIMEOUT_S" 9 || die "another provisioning held ${LOCK_FILE} for ${LOCK_TIMEOUT_S} s"

  local browser=false
  local argument
  for argument in "$@"; do
    case "$argument" in
      --browser) browser=true ;;
      *) die "unknown argument ${argument}; provision takes only --browser (also install the console tests' chromium)" ;;
    esac
  done

  ensure_busybox
  ensure_static_cc
  ensure_postgres
  if [[ "$browser" == true ]]; then ensure_browser; fi
  ensure_engine
  say "docker engine $(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?') answers"
  ensure_compose
  ensure_remote_engine_tools
  ensure_gvisor
  AGENTCAGE_BUSYBOX="$BUSYBOX" bash "${SCRIPT_DIR}/build-test-image.sh" 9>&-
  build_agent_images 9>&-
}

main "$@"
