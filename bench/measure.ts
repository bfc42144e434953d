// What every benchmark here shares: its one flag (--runs N, or BENCH_RUNS), the error that makes
// it exit non-zero (something went wrong, never a missed target), and how samples are summarized.

export class BenchFailure extends Error {
  override readonly name = "BenchFailure";
}

/** `--runs N`, `--runs=N`, else BENCH_RUNS, else `defaultRuns`. */
export function parseRuns(argv: readonly string[], env: NodeJS.ProcessEnv, defaultRuns: number, maxRuns: number): number {
  let raw: string | undefined = env["BENCH_RUNS"];
  let from = "BENCH_RUNS";
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--runs") {
      raw = argv[++i];
      from = "--runs";
    } else if (arg.startsWith("--runs=")) {
      raw = arg.slice("--runs=".length);
      from = "--runs";
    } else {
      throw new BenchFailure(`unknown argument ${JSON.stringify(arg)}; the only flag is --runs N`);
    }
  }
  if (raw === undefined || raw === "") {
    if (from === "--runs") throw new BenchFailure(`--runs has no value; write --runs ${defaultRuns}`);
    return defaultRuns;
  }
  const runs = Number(raw);
  if (!Number.isInteger(runs) || runs < 1 || runs > maxRuns) {
    throw new BenchFailure(`${from} ${JSON.stringify(raw)} is not a whole number from 1 to ${maxRuns}; write one, such as ${defaultRuns}`);
  }
  return runs;
}

export type Summary = { readonly median: number; readonly p90: number; readonly min: number };

/** Median (mean of the middle two when even), p90 by nearest rank, min. */
export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (i: number): number => sorted[Math.min(Math.max(i, 0), sorted.length - 1)] ?? Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
  return { median, p90: at(Math.ceil(0.9 * sorted.length) - 1), min: at(0) };
}

/**
 * The end of a bench that starts containers: says how many of its containers are left (any is a
 * failure, as is `failure`), and returns the exit code.
 */
export function reportEnd(label: string, leaked: readonly string[], failure: string | undefined): number {
  console.log(`containers left with label ${label}: ${leaked.length}`);
  if (failure !== undefined) console.error(`bench failed: ${failure}`);
  if (leaked.length > 0) console.error(`bench failed: ${leaked.length} container(s) leaked: ${leaked.join(" ")}; remove them with docker rm -f`);
  return failure === undefined && leaked.length === 0 ? 0 : 1;
}

/** Runs a bench's main and sets the exit code: what it returned, or 1 when it threw. */
export function runBench(main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    },
  );
}
