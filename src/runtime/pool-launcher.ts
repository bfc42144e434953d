// The launcher a pooled container runs while it waits for its Run, and the claim that binds it: the
// one place the bytes of a member's stdin are decided. A member may first be given a head start (the
// agent's words and environment, fixed per runtime and never a caller's): the launcher starts them at
// once, their stdin a pipe nothing flows into; a head start that ends before its claim ends the
// member. The claim carries the Run's words, environment and timer, and says either `go` (the head
// start is the Run's own: the rest of stdin flows to it, under the Run's timer, kept here as
// `timeout` would) or `run` (a head start is killed, and the launcher becomes the words). Every byte
// after the claim is the agent's own stdin. Invariant: nothing per Run is in the member before its
// claim (its argv, its labels and its create body hold only the launcher), and no value the claim or
// the head start carries ever reaches an argv: the launcher exports it with a shell builtin, then execs.

import { type ContainerDeadline, DEADLINE_COMMAND, deadlineWords } from "../container/index.js";

/** The first field of every claim: a member reading anything else refuses it (exit 125: the Run is `unavailable`). */
export const CLAIM_MAGIC = "agentcage-claim-2";
/** The first field of a head start, written when the member is made, before any claim. */
export const HEAD_START_MAGIC = "agentcage-head-start-1";

/** Seconds the launcher waits for each field after the first: a claim is written at once, whole. */
const CLAIM_FIELD_SECONDS = 10;

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
  '  mkfifo -m 600 "$go" || exit 125',
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
  "exec 4>&-",
  // The words stay in "$@", the pairs after them are exported.
  'count=$#; while [ "$count" -gt 0 ]; do',
  '  if [ "$words" -gt 0 ]; then set -- "$@" "$1"; words=$((words - 1)); else export "$1" || exit 125; fi',
  "  shift; count=$((count - 1))",
  "done",
  'if [ -n "$seconds" ]; then',
  `  if [ "$grace" = 0 ]; then set -- ${DEADLINE_COMMAND} -s "$signal" "$seconds" "$@"; else set -- ${DEADLINE_COMMAND} -s "$signal" -k "$grace" "$seconds" "$@"; fi`,
  "fi",
  "unset idle magic count word words pair mode signal grace seconds head go watch x state",
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
};

/** The head start's bytes, written once when the member is made. Throws only for a value a shell field cannot carry (a NUL). */
export function encodeHeadStart(headStart: HeadStart): Buffer {
  if (headStart.words.length === 0) throw new Error("a head start has no words to run");
  return encodeFields([HEAD_START_MAGIC, String(headStart.env.length), String(headStart.words.length), ...pairs(headStart.env), ...headStart.words]);
}

/** The claim's bytes, to be written before the agent's own stdin. Throws only for a value a shell field cannot carry (a NUL). */
export function encodeClaim(claim: Claim): Buffer {
  const timer = claim.deadline === undefined ? ["", "", ""] : timerFields(claim.deadline);
  return encodeFields([CLAIM_MAGIC, claim.mode, ...timer, String(claim.words.length), ...claim.words, String(claim.env.length), ...pairs(claim.env)]);
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
