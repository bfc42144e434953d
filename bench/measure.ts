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
