// The launcher a pooled container runs while it waits for its Run, and the claim that binds it: the
// one place the bytes of a member's stdin are decided. A member may first be given a head start (the
// agent's words and environment, fixed per runtime and never a caller's): the launcher starts them at
// once, their stdin a pipe nothing flows into; a head start that ends before its claim ends the
// member. The claim carries the Run's words, environment, timer and tmpfs secrets (written to files
// under TMPFS_SECRETS_DIR before the agent gets any byte, for a helper command of the agent's to read:
// tmpfsSecretCommand), and says either `go` (the head
// start is the Run's own: the rest of stdin flows to it, under the Run's timer, kept here as
// `timeout` would) or `run` (a head start is killed, and the launcher becomes the words). Every byte
// after the claim is the agent's own stdin. Invariant: nothing per Run is in the member before its
// claim (its argv, its labels and its create body hold only the launcher), and no value the claim or
// the head start carries ever reaches an argv: the launcher exports it, or writes it to its file on
// the container's tmpfs, with shell builtins, then execs.

import { type ContainerDeadline, DEADLINE_COMMAND, deadlineWords } from "../../container/index.js";

/** The first field of every claim: a member reading anything else refuses it (exit 125: the Run is `unavailable`). */
export const CLAIM_MAGIC = "agentcage-claim-3";
/** The first field of a head start, written when the member is made, before any claim. */
export const HEAD_START_MAGIC = "agentcage-head-start-1";

/**
 * Seconds the launcher waits for each field after the first. A claim is written at once, whole, so
 * only a writer that died mid-claim leaves it waiting; generous, since a busy host may deliver the
 * bytes of one write late (slow is not dead), and all it costs is a dead writer's member lingering.
 */
const CLAIM_FIELD_SECONDS = 120;

/**
 * Where the claim's tmpfs secrets are written, one file a name in a directory of mode 700, on the
 * container's tmpfs: gone with the container, never on the host's disk. `.written` says they are there;
 * `.ready`, a fifo made with a head start, wakes a helper that asked before the claim.
 */
export const TMPFS_SECRETS_DIR = "/tmp/.agentcage-secrets";
/** How a tmpfs secret may be named: its file's name. */
export const TMPFS_SECRET_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** Lines written to `.ready` at the claim: one for each helper that may wait on it (a head start's and a retry). */
const READY_LINES = 8;

const field = (name: string): string => `IFS= read -r -d '' -t ${CLAIM_FIELD_SECONDS} ${name} || exit 125`;
const number = (name: string): string => `case "$${name}" in ""|*[!0-9]*) exit 125;; esac`;

/**
 * The launcher, in the shell both the agent image (bash) and a busybox image (ash) run alike. It
 * waits `$1` seconds for a claim and exits 0 without one (the pool replaced it long before).
 * fd 3 is its stdin again for the head start's feeder (an asynchronous list's stdin is /dev/null);
 * fd 4 holds the go pipe open both ways, so telling the feeder never blocks.
 */
export const LAUNCHER_SCRIPT = [
  'idle="$1"; set --; head=""; watch=""',
  // Whether a process runs (a zombie does not): the shell may not have reaped it while it blocks in read.
  'alive() { read -r x x state x <"/proc/$1/stat" 2>/dev/null && [ "$state" != Z ]; }',
  `IFS= read -r -d '' -t "$idle" magic || exit 0`,
  `if [ "$magic" = "${HEAD_START_MAGIC}" ]; then`,
  `  ${field("envs")}; ${number("envs")}`,
  `  ${field("count")}; ${number("count")}`,
  '  [ "$count" -gt 0 ] || exit 125; count=$((envs + count))',
  '  while [ "$count" -gt 0 ]; do',
  `    ${field("word")}`,
  '    set -- "$@" "$word"; count=$((count - 1))',
  "  done",
  '  go="/tmp/.agentcage-go.$$"; rm -f "$go" "$go.timeout" "$go.kill"',
  // The secrets' fifo too: a helper of the head start's that asks before the claim waits on it.
  `  mkdir -m 700 ${TMPFS_SECRETS_DIR} && mkfifo -m 600 "$go" ${TMPFS_SECRETS_DIR}/.ready || exit 125`,
  '  exec 3<&0 4<>"$go"',
  // The feeder: nothing reaches the head start's stdin until the launcher says go.
  '  { IFS= read -r word <"$go"; [ "$word" = go ] || exit 0; exec cat; } <&3 3<&- 4>&- | (',
  '    while [ "$envs" -gt 0 ]; do export "$1" || exit 125; shift; envs=$((envs - 1)); done',
  '    unset idle magic envs count word head go watch; exec "$@"',
  "  ) 3<&- 4>&- &",
  "  head=$!; set --; exec 3<&-",
  // A head start that ends before its claim ends the member (the pool replaces it): no Run is handed a dead one.
  '  ( trap - TERM INT HUP; while alive "$head"; do sleep 1; done; kill -KILL $$ ) 4>&- &',
  "  watch=$!",
  `  IFS= read -r -d '' -t "$idle" magic || { kill -KILL "$watch" "$head" 2>/dev/null; exit 0; }`,
  // From here the launcher ends the head start itself, when it does: the watch must not end the launcher for it.
  '  kill -KILL "$watch" 2>/dev/null; wait "$watch" 2>/dev/null',
  "fi",
  `[ "$magic" = "${CLAIM_MAGIC}" ] || { [ -z "$head" ] || kill -KILL "$head" 2>/dev/null; echo "agentcage launcher: what came on stdin is not a claim" >&2; exit 125; }`,
  `${field("mode")}; ${field("signal")}; ${field("grace")}; ${field("seconds")}`,
  `${field("words")}; ${number("words")}`,
  '[ "$words" -gt 0 ] || exit 125; count=$words',
  'while [ "$count" -gt 0 ]; do',
  `  ${field("word")}`,
  '  set -- "$@" "$word"; count=$((count - 1))',
  "done",
  `${field("count")}; ${number("count")}`,
  'while [ "$count" -gt 0 ]; do',
  `  ${field("pair")}`,
  '  set -- "$@" "$pair"; count=$((count - 1))',
  "done",
  // The tmpfs secrets, each to its file by a builtin (never an argv), before the agent gets a byte.
  `${field("secrets")}; ${number("secrets")}`,
  'if [ "$secrets" -gt 0 ]; then',
  `  [ -d ${TMPFS_SECRETS_DIR} ] || mkdir -m 700 ${TMPFS_SECRETS_DIR} || exit 125`,
  '  while [ "$secrets" -gt 0 ]; do',
  `    ${field("pair")}`,
  '    name="${pair%%=*}"; case "$name" in ""|*[!a-z0-9-]*) exit 125;; esac',
  `    printf '%s' "\${pair#*=}" >"${TMPFS_SECRETS_DIR}/$name" || exit 125`,
  "    secrets=$((secrets - 1))",
  "  done",
  `  pair=""; : >${TMPFS_SECRETS_DIR}/.written || exit 125`,
  // fd 5 holds the fifo open (so what is written stays in it) as long as the launcher lives; closed before any exec.
  `  if [ -n "$head" ]; then exec 5<>${TMPFS_SECRETS_DIR}/.ready; printf '${"ready\\n".repeat(READY_LINES)}' >&5; fi`,
  "fi",
  'if [ "$mode" = go ] && [ -n "$head" ] && alive "$head"; then',
  // fd 4 stays open: closed before the feeder has opened the fifo, the pipe and its `go` would be
  // gone, and the feeder (so the head start, and the Run) would wait for ever. A claim written just
  // after the head start, or a feeder slow to start on a busy machine, met exactly that.
  "  echo go >&4",
  // The Run's timer, as `timeout` keeps it: its signal at the deadline, KILL a grace later; 124 or 137.
  "  trap 'kill -TERM \"$head\" 2>/dev/null' TERM; trap 'kill -INT \"$head\" 2>/dev/null' INT; trap 'kill -HUP \"$head\" 2>/dev/null' HUP",
  '  if [ -n "$seconds" ]; then',
  '    ( trap - TERM INT HUP; sleep "$seconds"; kill -0 "$head" 2>/dev/null || exit 0; : >"$go.timeout"',
  '      [ "$signal" = KILL ] && : >"$go.kill"; kill -"$signal" "$head"; [ "$grace" -gt 0 ] || exit 0',
  '      sleep "$grace"; kill -0 "$head" 2>/dev/null || exit 0; : >"$go.kill"; kill -KILL "$head" ) &',
  "  fi",
  '  while :; do wait "$head"; code=$?; kill -0 "$head" 2>/dev/null || break; done',
  '  [ -e "$go.kill" ] && exit 137; [ -e "$go.timeout" ] && exit 124; exit "$code"',
  "fi",
  // `run`, or `go` to a head start that is gone: the claim's own words and environment.
  '[ "$mode" = go ] || [ "$mode" = run ] || exit 125',
  // Killed before its feeder lets go of its stdin (a head start that saw its stdin end could still print),
  // then waited for with its feeder (the shell waits for the whole pipeline).
  'if [ -n "$head" ]; then kill -KILL "$head" 2>/dev/null; echo stop >&4; wait "$head" 2>/dev/null; rm -f "$go"; fi',
  "exec 4>&- 5>&-",
  // The words stay in "$@", the pairs after them are exported.
  'count=$#; while [ "$count" -gt 0 ]; do',
  '  if [ "$words" -gt 0 ]; then set -- "$@" "$1"; words=$((words - 1)); else export "$1" || exit 125; fi',
  "  shift; count=$((count - 1))",
  "done",
  'if [ -n "$seconds" ]; then',
  `  if [ "$grace" = 0 ]; then set -- ${DEADLINE_COMMAND} -s "$signal" "$seconds" "$@"; else set -- ${DEADLINE_COMMAND} -s "$signal" -k "$grace" "$seconds" "$@"; fi`,
  "fi",
  "unset idle magic count word words pair mode signal grace seconds head go watch x state secrets name",
  'exec "$@"',
].join("\n");

/**
 * The member's words after the image (or after a declared entrypoint): bash when the image has it,
 * else its `sh` (busybox's runs the launcher as bash does; dash, Debian's sh, would not, and an image
 * with dash has bash).
 */
export function launcherWords(idleSeconds: number): string[] {
  return [
    "/bin/sh",
    "-c",
    'if [ -x /bin/bash ]; then exec /bin/bash -c "$1" agentcage-launcher "$2"; fi; exec /bin/sh -c "$1" agentcage-launcher "$2"',
    "agentcage-pool",
    LAUNCHER_SCRIPT,
    String(idleSeconds),
  ];
}

/** The words and environment a member's agent is started with ahead of any Run (later names win). */
export type HeadStart = {
  readonly words: readonly string[];
  readonly env: ReadonlyArray<readonly [string, string]>;
};

/**
 * What a Run hands its member: its words and environment, and the mode. `go`: the member's head start
 * is this Run's agent as it is (the same words and environment), handed the rest of stdin, or, when it
 * is gone, the words are run as for `run`; `run`: become `words` with `env` (a head start is killed first).
 */
export type Claim = {
  readonly mode: "go" | "run";
  readonly deadline?: ContainerDeadline;
  readonly words: readonly string[];
  readonly env: ReadonlyArray<readonly [string, string]>;
  /** Written each to TMPFS_SECRETS_DIR/<name> before the agent gets a byte (names: TMPFS_SECRET_NAME); default none. */
  readonly secrets?: ReadonlyArray<readonly [string, string]>;
};

/**
 * A shell command (for sh, as a CLI's credential helper runs it) that prints the tmpfs secret `name`:
 * at once once the claim wrote it, else when it does (a head start's helper asks before its claim).
 * Only the file's path is in any argv, never the value.
 */
export function tmpfsSecretCommand(name: string): string {
  if (!TMPFS_SECRET_NAME.test(name)) throw new Error(`tmpfs secret name ${JSON.stringify(name)} is not a file name of lower-case letters, digits and -`);
  return `d=${TMPFS_SECRETS_DIR}; [ -e "$d/.written" ] || read -r x <"$d/.ready"; exec cat "$d/${name}"`;
}

/** The head start's bytes, written once when the member is made. Throws only for a value a shell field cannot carry (a NUL). */
export function encodeHeadStart(headStart: HeadStart): Buffer {
  if (headStart.words.length === 0) throw new Error("a head start has no words to run");
  return encodeFields([HEAD_START_MAGIC, String(headStart.env.length), String(headStart.words.length), ...pairs(headStart.env), ...headStart.words]);
}

/** The claim's bytes, to be written before the agent's own stdin. Throws only for a value a shell field cannot carry (a NUL). */
export function encodeClaim(claim: Claim): Buffer {
  const timer = claim.deadline === undefined ? ["", "", ""] : timerFields(claim.deadline);
  const secrets = claim.secrets ?? [];
  const misnamed = secrets.find(([name]) => !TMPFS_SECRET_NAME.test(name));
  if (misnamed !== undefined) throw new Error(`tmpfs secret name ${JSON.stringify(misnamed[0])} is not a file name of lower-case letters, digits and -`);
  return encodeFields([
    CLAIM_MAGIC,
    claim.mode,
    ...timer,
    String(claim.words.length),
    ...claim.words,
    String(claim.env.length),
    ...pairs(claim.env),
    String(secrets.length),
    ...pairs(secrets),
  ]);
}

/** The timer's signal, grace and seconds, exactly as deadlineWords spells them (KILL and no grace when it has none). */
function timerFields(deadline: ContainerDeadline): [string, string, string] {
  const words = deadlineWords(deadline);
  const seconds = words[words.length - 1] as string;
  return words.length === 6 ? [words[2] as string, words[4] as string, seconds] : [words[2] as string, "0", seconds];
}

function pairs(env: ReadonlyArray<readonly [string, string]>): string[] {
  return env.map(([name, value]) => `${name}=${value}`);
}

function encodeFields(fields: readonly string[]): Buffer {
  for (const value of fields) {
    // Names only: a value is never put in an error.
    if (value.includes("\0")) throw new Error("a word or an environment value of the Run holds a NUL byte, which no process's argv or environment can carry");
  }
  return Buffer.from(fields.map((value) => `${value}\0`).join(""), "utf8");
}
