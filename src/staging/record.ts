// The Run record on disk: stdout.txt and stderr.txt written as the Run goes, with every secret
// masked before a byte reaches the disk (even one split across chunks), then outcome.json, and a
// `done` marker written last and atomically. A record without `done` is of a Run that did not end.

import { createWriteStream } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import type { Masker } from "../redact/index.js";

export type RecordStream = {
  readonly write: (chunk: Uint8Array) => void;
  /** Flushes what is held back and closes the file. */
  readonly close: () => Promise<void>;
};

/**
 * Writes decoded, masked text, keeping at most `capBytes` of input. It holds back, unmasked, what
 * the masker says the next chunk may still change (about the longest secret's length), so a secret
 * that continues in the next chunk is masked whole once it arrives.
 */
export function createRecordStream(path: string, masker: Masker, capBytes: number): RecordStream {
  const file = createWriteStream(path, { mode: 0o600 });
  let failed: Error | undefined;
  file.on("error", (error) => (failed = error));
  const decoder = new TextDecoder();
  let held = "";
  let taken = 0;
  let cut = false;
  const emit = (text: string, final: boolean): void => {
    // What is held back is unmasked text: a longer secret that arrives later is still seen whole.
    const { masked, unsettled } = final ? { masked: masker.mask(held + text), unsettled: "" } : masker.maskSettled(held + text);
    held = unsettled;
    if (masked.length > 0 && failed === undefined) file.write(masked);
  };
  return {
    write: (chunk) => {
      const room = capBytes - taken;
      if (chunk.length > room) cut = true;
      if (room <= 0) return;
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
      taken += part.length;
      emit(decoder.decode(part, { stream: true }), false);
    },
    close: async () => {
      // Past the cap, what is held back may be the start of a secret cut off by the cap: drop it.
      if (cut) held = "";
      else emit(decoder.decode(), true);
      await new Promise<void>((resolve) => file.end(resolve));
      if (failed !== undefined) throw failed;
    },
  };
}

/** Writes a file through a temporary sibling and a rename, so a reader sees all of it or none. */
export async function writeAtomically(path: string, content: string): Promise<void> {
  const temporary = `${path}.tmp-${process.pid}`;
  await writeFile(temporary, content, { mode: 0o600 });
  await rename(temporary, path);
}
