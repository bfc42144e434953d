#!/usr/bin/env bash
# Makes the Debian base the agent and stand-in images build FROM (debian:bookworm-slim) on a
# machine that cannot reach a container registry: debootstrap --variant=minbase, then docker import.
# Invariants: an existing image of that name is never touched (quick and idempotent); the Debian
# mirror is read from this host's apt sources at run time (AGENTCAGE_DEBIAN_MIRROR overrides it),
# never written into the repo; the imported root holds no host file (resolv.conf, hostname, /dev).
set -euo pipefail
shopt -s inherit_errexit

readonly IMAGE="debian:bookworm-slim"
readonly SUITE="bookworm"
readonly ARCH="amd64"

say() { printf 'build-debian-base: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# The apt source files apt itself reads: sources.list and sources.list.d/*.list in the one-line
# format, sources.list.d/*.sources in deb822. Other names (e.g. *.disabled) are ignored, as apt does.
# APT_ETC (default /etc/apt) exists so the parsing can be tried on sample files.
apt_source_files() {
  local dir="${APT_ETC:-/etc/apt}" file
  [[ -f "$dir/sources.list" ]] && printf '%s\n' "$dir/sources.list"
  for file in "$dir"/sources.list.d/*.list "$dir"/sources.list.d/*.sources; do
    [[ -f "$file" ]] && printf '%s\n' "$file"
  done
  return 0
}

# mirror_for SUITE: the first http(s) URI of an enabled `deb` source that serves SUITE, or nothing.
mirror_for() {
  local suite="$1" file
  while IFS= read -r file; do
    if [[ "$file" == *.sources ]]; then
      # deb822: stanzas separated by blank lines; a line starting with a space continues a field.
      awk -v want="$suite" '
        function flush() {
          if (types ~ /(^|[ \t])deb([ \t]|$)/ && enabled !~ /^[ \t]*(no|false|0)[ \t]*$/) {
            n = split(suites, s, /[ \t]+/)
            for (i = 1; i <= n; i++) if (s[i] == want) {
              m = split(uris, u, /[ \t]+/)
              for (j = 1; j <= m; j++) if (u[j] ~ /^https?:\/\//) { print u[j]; exit }
            }
          }
          types = ""; suites = ""; uris = ""; enabled = ""
        }
        /^[ \t]*#/ { next }
        /^[ \t]*$/ { flush(); field = ""; next }
        /^[ \t]/ { next }
        {
          field = tolower(substr($0, 1, index($0, ":") - 1)); value = substr($0, index($0, ":") + 1)
          if (field == "types") types = value
          else if (field == "suites") suites = value
          else if (field == "uris") uris = value
          else if (field == "enabled") enabled = value
        }
        END { flush() }
      ' "$file"
    else
      # One-line: deb [options] uri suite component...
      awk -v want="$suite" '
        /^[ \t]*deb[ \t]/ {
          line = $0
          sub(/^[ \t]*deb[ \t]+/, "", line)
          if (line ~ /^\[/) sub(/^\[[^]]*\][ \t]*/, "", line)
          split(line, f, /[ \t]+/)
          if (f[2] == want && f[1] ~ /^https?:\/\//) { print f[1]; exit }
        }
      ' "$file"
    fi
  done < <(apt_source_files) | head -n 1
}

ensure_debootstrap() {
  command -v debootstrap >/dev/null 2>&1 && return 0
  [[ "$(id -u)" -eq 0 ]] || die "debootstrap is missing; install Debian's debootstrap" \
    "(apt-get install debootstrap) as root, or load a ${IMAGE} image into the engine"
  command -v apt-get >/dev/null 2>&1 || die "debootstrap is missing and there is no apt-get to install it"
  say "apt-get install debootstrap"
  apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >&2
}

# What the official slim images leave out of every later package: docs, man pages, locales.
write_slim_excludes() {
  local root="$1"
  mkdir -p "$root/etc/dpkg/dpkg.cfg.d"
  printf '%s\n' \
    'path-exclude /usr/share/doc/*' \
    'path-include /usr/share/doc/*/copyright' \
    'path-exclude /usr/share/man/*' \
    'path-exclude /usr/share/groff/*' \
    'path-exclude /usr/share/info/*' \
    'path-exclude /usr/share/lintian/*' \
    'path-exclude /usr/share/linda/*' \
    'path-exclude /usr/share/locale/*' \
    'path-include /usr/share/locale/locale.alias' >"$root/etc/dpkg/dpkg.cfg.d/docker-slim"
  find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete 2>/dev/null || true
  find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete 2>/dev/null || true
  rm -rf "$root"/usr/share/{man,groff,info,lintian,linda}/*
  find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} + 2>/dev/null || true
}

work="" # scratch directory of this build, removed on exit
cleanup() {
  [[ -n "$work" ]] || return 0
  # debootstrap unmounts what it mounted; a failed one may not have. Never delete through a mount.
  local mount
  while IFS= read -r mount; do umount -l "$mount" 2>/dev/null || true; done < <(findmnt -rn -o TARGET | grep -F "$work/" | sort -r)
  if findmnt -rn -o TARGET | grep -qF "$work/"; then
    say "left ${work} in place: something is still mounted under it"
  else
    rm -rf "$work"
  fi
}

main() {
  docker info >/dev/null 2>&1 || die "no docker engine answers; run scripts/provision.sh first"
  if docker image inspect "$IMAGE" >/dev/null 2>&1; then
    say "reused ${IMAGE}"
    return 0
  fi
  [[ "$(id -u)" -eq 0 ]] || die "${IMAGE} is missing and debootstrap needs root; run this script as" \
    "root, or load a ${IMAGE} image into the engine (docker load / docker pull where a registry answers)"

  local mirror="${AGENTCAGE_DEBIAN_MIRROR:-$(mirror_for "$SUITE")}"
  [[ -n "$mirror" ]] || die "no apt source of this host serves '${SUITE}' over http(s); set" \
    "AGENTCAGE_DEBIAN_MIRROR to a Debian mirror URL"
  ensure_debootstrap

  local started=$SECONDS
  work="$(mktemp -d "${TMPDIR:-/var/tmp}/agentcage-debian-base.XXXXXX")"
  trap cleanup EXIT
  local root="$work/rootfs"
  say "debootstrap --variant=minbase ${SUITE} from ${mirror}"
  # ca-certificates: an https mirror must still answer apt inside the image (apt checks signatures).
  debootstrap --variant=minbase --include=ca-certificates --arch="$ARCH" "$SUITE" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
    tail -n 25 "$work/debootstrap.log" >&2
    die "debootstrap failed (last lines above); check that ${mirror} serves ${SUITE}"
  }

  # The image's apt sources: the same mirror, plus the host's updates and security suites if any.
  local updates security
  updates="$(mirror_for "${SUITE}-updates")"
  security="$(mirror_for "${SUITE}-security")"
  {
    printf 'deb %s %s main\n' "$mirror" "$SUITE"
    if [[ -n "$updates" ]]; then printf 'deb %s %s-updates main\n' "$updates" "$SUITE"; fi
    if [[ -n "$security" ]]; then printf 'deb %s %s-security main\n' "$security" "$SUITE"; fi
  } >"$root/etc/apt/sources.list"

  write_slim_excludes "$root"
  # debootstrap installs the point release; the updates and security suites may hold newer ones.
  say "apt-get upgrade inside the new root"
  { chroot "$root" apt-get update -q --error-on=any && DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get -y -q upgrade; } \
    >>"$work/debootstrap.log" 2>&1 || {
    tail -n 25 "$work/debootstrap.log" >&2
    die "apt-get upgrade in the new root failed (last lines above)"
  }
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
    "$root"/var/log/* "$root"/tmp/* "$root"/root/.bash_history
  # The engine provides these at run time; the host's copies must not end up in the image.
  rm -f "$root/etc/resolv.conf" "$root/etc/hostname"

  tar -C "$root" --numeric-owner --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' -c . |
    docker import \
      --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
      --change 'CMD ["bash"]' \
      - "$IMAGE" >/dev/null
  say "built ${IMAGE} in $((SECONDS - started)) s"
}

main "$@"
