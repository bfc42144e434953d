// What the engine tests share: the offline test image, a reader that collects stdout, a logger
// that keeps every line it was given, and questions asked of the real engine through the docker CLI.

import { execFileSync } from "node:child_process";
import { Writable } from "node:stream";
import { pino, type Logger } from "pino";
import type { ReaderVerdict } from "../../src/index.js";

/** Built by scripts/build-test-image.sh, which `npm test` runs first. */
export const TEST_IMAGE = "agentcage-test:latest";

export type Collected = ReaderVerdict & { readonly bytes: Buffer };

/** A reader that keeps all of stdout and says ok whatever it was. */
export async function collectStdout(stdout: AsyncIterable<Uint8Array>): Promise<Collected> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdout) chunks.push(Buffer.from(chunk));
  return { ok: true, bytes: Buffer.concat(chunks) };
}

/** A reader that says ok only when stdout ends with the line `ok`. */
export async function expectOkLine(stdout: AsyncIterable<Uint8Array>): Promise<ReaderVerdict & { text: string }> {
  const { bytes } = await collectStdout(stdout);
  const text = bytes.toString("utf8");
  return text.trimEnd().endsWith("ok") ? { ok: true, text } : { ok: false, error: `no "ok" line in ${JSON.stringify(text.slice(-200))}`, text };
}

export type CapturingLogger = { readonly logger: Logger; readonly lines: string[] };

export function capturingLogger(): CapturingLogger {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(
        ...String(chunk)
          .split("\n")
          .filter((l) => l.length > 0),
      );
      done();
    },
  });
  return { logger: pino({ level: "debug" }, sink), lines };
}

export function docker(...args: string[]): string {
  return execFileSync("docker", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** Ids of every container, running or not, that carries this run's label. */
export function containersOfRun(runId: string): string[] {
  return docker("ps", "--all", "--quiet", "--filter", `label=agentcage.run=${runId}`)
    .split("\n")
    .filter((l) => l.length > 0);
}
