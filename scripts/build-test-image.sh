#!/usr/bin/env bash
# Builds agentcage-test:latest, the tiny offline image the tests and demo run, with no registry:
# static busybox + applet links, root and agent (10002:10002) users, and images/test/rootfs.
# Invariant: the image's agentcage.content-hash label is a digest of everything that goes into it
# (busybox, rootfs names/modes/contents, this script); a matching label means nothing to rebuild.
set -euo pipefail
shopt -s inherit_errexit

readonly IMAGE="agentcage-test:latest"
readonly LABEL="agentcage.content-hash"
readonly AGENT_UID=10002
readonly AGENT_GID=10002
SCRIPT_PATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
readonly SCRIPT_PATH
ROOTFS="$(cd "$(dirname "$SCRIPT_PATH")/.." && pwd)/images/test/rootfs"
readonly ROOTFS
# Small C helpers compiled statically into /usr/local/bin (busybox cannot, e.g., bind a unix socket).
HELPERS="$(dirname "$ROOTFS")/src"
readonly HELPERS
readonly BUSYBOX="${AGENTCAGE_BUSYBOX:-/bin/busybox}"

say() { printf 'build-test-image: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# Git keeps only the executable bit, so that is all of a mode that goes into the image:
# directories and executables 0755, other files 0644. The hash sees the same normalized mode.
mode_of() {
  local perms
  perms="$(stat -c %A "$1")"
  if [[ -d "$1" || "${perms:3:1}" == x ]]; then echo 755; else echo 644; fi
}

content_hash() {
  {
    printf 'busybox %s\n' "$(sha256sum <"$BUSYBOX" | cut -d' ' -f1)"
    printf 'script %s\n' "$(sha256sum <"$SCRIPT_PATH" | cut -d' ' -f1)"
    local helper
    for helper in "$HELPERS"/*.c; do
      printf 'helper %s %s\n' "$(basename "$helper")" "$(sha256sum <"$helper" | cut -d' ' -f1)"
    done
    cd "$ROOTFS"
    local path digest
    while IFS= read -r -d '' path; do
      if [[ -L "$path" ]]; then
        printf 'link %s -> %s\n' "$path" "$(readlink "$path")"
      elif [[ -d "$path" ]]; then
        printf 'dir %s\n' "$path"
      else
        digest="$(sha256sum <"$path" | cut -d' ' -f1)"
        printf 'file %s %s %s\n' "$path" "$(mode_of "$path")" "$digest"
      fi
    done < <(find . -mindepth 1 -print0 | LC_ALL=C sort -z)
  } | sha256sum | cut -d' ' -f1
}

populate() {
  local dir="$1" applet path
  mkdir -p "$dir"/{bin,etc,root,tmp,work,home/agent}
  chmod 0755 "$dir" "$dir"/{bin,etc,work,home,home/agent}
  chmod 0700 "$dir/root"
  chmod 1777 "$dir/tmp"

  install -m 0755 "$BUSYBOX" "$dir/bin/busybox"
  while IFS= read -r applet; do
    if [[ -n "$applet" && "$applet" != busybox ]]; then ln -s busybox "$dir/bin/$applet"; fi
  done < <("$BUSYBOX" --list)

  printf '%s\n' \
    'root:x:0:0:root:/root:/bin/sh' \
    "agent:x:${AGENT_UID}:${AGENT_GID}:agent:/work:/bin/sh" >"$dir/etc/passwd"
  printf '%s\n' 'root:x:0:' "agent:x:${AGENT_GID}:" >"$dir/etc/group"
  chmod 0644 "$dir/etc/passwd" "$dir/etc/group"

  cp -a --no-preserve=ownership "$ROOTFS/." "$dir/"
  local helper
  mkdir -p "$dir/usr/local/bin"
  for helper in "$HELPERS"/*.c; do
    cc -static -Os -o "$dir/usr/local/bin/$(basename "$helper" .c)" "$helper"
  done
  while IFS= read -r -d '' path; do
    if [[ ! -L "$dir/$path" ]]; then chmod "$(mode_of "$ROOTFS/$path")" "$dir/$path"; fi
  done < <(cd "$ROOTFS" && find . -mindepth 1 -print0)
}

work="" # scratch directory of this build, removed on exit

main() {
  docker info >/dev/null 2>&1 || die "no docker engine answers; run scripts/provision.sh first"
  [[ -x "$BUSYBOX" ]] || die "no busybox at ${BUSYBOX}; install Debian's busybox-static"
  [[ -d "$ROOTFS" ]] || die "${ROOTFS} is missing; the test image's files live there"
  command -v cc >/dev/null 2>&1 || die "no C compiler (cc) for the test image's helpers; install Debian's gcc and libc6-dev"

  local hash current old_id
  hash="$(content_hash)"
  current="$(docker image inspect -f "{{ index .Config.Labels \"${LABEL}\" }}" "$IMAGE" 2>/dev/null || true)"
  if [[ "$current" == "$hash" ]]; then
    say "reused ${IMAGE} (${LABEL}=${hash:0:12})"
    return 0
  fi
  old_id="$(docker image inspect -f '{{.Id}}' "$IMAGE" 2>/dev/null || true)"

  work="$(mktemp -d "${TMPDIR:-/tmp}/agentcage-test-image.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  populate "$work/rootfs"

  # Everything is owned by root in the image except /work and /home/agent, which belong to the
  # agent user: a directory the agent may write by its permissions, so only --read-only stops it.
  tar -C "$work/rootfs" --numeric-owner --owner=0 --group=0 --exclude=./work --exclude=./home/agent -c . >"$work/rootfs.tar"
  tar -C "$work/rootfs" --numeric-owner --owner="$AGENT_UID" --group="$AGENT_GID" \
    --no-recursion -r ./work ./home/agent -f "$work/rootfs.tar"
  docker import \
    --change 'ENV PATH=/usr/local/bin:/bin' \
    --change "LABEL ${LABEL}=${hash}" \
    - "$IMAGE" <"$work/rootfs.tar" >/dev/null

  # The image this one replaced is now untagged; drop it unless a container still uses it.
  if [[ -n "$old_id" ]]; then docker image rm "$old_id" >/dev/null 2>&1 || true; fi
  say "built ${IMAGE} (${LABEL}=${hash:0:12})"
}

main "$@"
