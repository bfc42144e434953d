// The launcher a pooled container runs while it waits for its Run, and the claim that binds it: the
// one place the claim's bytes are decided. The launcher reads the claim from its stdin (the words to
// run and the environment to run them with, NUL-separated), then becomes those words; every byte
// after the claim is the agent's own stdin. Invariant: nothing per Run is in the member before its
// claim (its argv, its labels and its create body hold only the launcher), and no value the claim
// carries ever reaches an argv: the launcher exports it with a shell builtin, then execs.

/** The first field of every claim: a member reading anything else refuses it (exit 125: the Run is `unavailable`). */
export const CLAIM_MAGIC = "agentcage-claim-1";

/** Seconds the launcher waits for each field after the first: a claim is written at once, whole. */
const CLAIM_FIELD_SECONDS = 10;

/**
 * The launcher, in the shell both the agent image (bash) and a busybox image (ash) run alike. It
 * waits `$1` seconds for a claim and exits 0 without one (the pool replaced it long before).
 */
export const LAUNCHER_SCRIPT = [
  'idle="$1"; set --',
  `IFS= read -r -d '' -t "$idle" magic || exit 0`,
  `[ "$magic" = "${CLAIM_MAGIC}" ] || { echo "agentcage launcher: what came on stdin is not a claim" >&2; exit 125; }`,
  `IFS= read -r -d '' -t ${CLAIM_FIELD_SECONDS} count || exit 125`,
  'case "$count" in ""|*[!0-9]*) exit 125;; esac',
  'while [ "$count" -gt 0 ]; do',
  `  IFS= read -r -d '' -t ${CLAIM_FIELD_SECONDS} word || exit 125`,
  '  set -- "$@" "$word"; count=$((count - 1))',
  "done",
  `IFS= read -r -d '' -t ${CLAIM_FIELD_SECONDS} count || exit 125`,
  'case "$count" in ""|*[!0-9]*) exit 125;; esac',
  'while [ "$count" -gt 0 ]; do',
  `  IFS= read -r -d '' -t ${CLAIM_FIELD_SECONDS} pair || exit 125`,
  '  export "$pair" || exit 125; count=$((count - 1))',
  "done",
  "unset idle magic count word pair",
  '[ "$#" -gt 0 ] || exit 125',
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

/** What a Run hands its member: the words to become, and the environment to run them with (later names win). */
export type Claim = {
  readonly words: readonly string[];
  readonly env: ReadonlyArray<readonly [string, string]>;
};

/** The claim's bytes, to be written before the agent's own stdin. Throws only for a value a shell field cannot carry (a NUL). */
export function encodeClaim(claim: Claim): Buffer {
  const fields = [CLAIM_MAGIC, String(claim.words.length), ...claim.words, String(claim.env.length), ...claim.env.map(([name, value]) => `${name}=${value}`)];
  for (const field of fields) {
    // Names only: a value is never put in an error.
    if (field.includes("\0")) throw new Error("a word or an environment value of the Run holds a NUL byte, which no process's argv or environment can carry");
  }
  return Buffer.from(fields.map((field) => `${field}\0`).join(""), "utf8");
}
