// One small JSON file the service alone writes (its keys, its tenants): read whole at start, written
// whole on each change through a temporary file and a rename, readable by the service's user only.
// Writes are serialised, so the last one asked is the last one on disk. The in-memory store keeps
// the same value in memory only (memoryJson).

import { readFile, rename, writeFile } from "node:fs/promises";

export type DurableJson<T> = {
  readonly read: () => Promise<T | undefined>;
  readonly write: (value: T) => Promise<void>;
};

export function durableJson<T>(path: string): DurableJson<T> {
  let last: Promise<void> = Promise.resolve();
  return {
    read: async () => {
      const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return undefined;
        throw error;
      });
      return text === undefined ? undefined : (JSON.parse(text) as T);
    },
    write: (value) => {
      const text = `${JSON.stringify(value, null, 1)}\n`;
      const written = last.then(async () => {
        const temporary = `${path}.tmp-${process.pid}`;
        await writeFile(temporary, text, { mode: 0o600 });
        await rename(temporary, path);
      });
      last = written.catch(() => undefined);
      return written;
    },
  };
}

/** The same value kept in this process only: the in-memory store's tenants and keys. */
export function memoryJson<T>(): DurableJson<T> {
  let text: string | undefined;
  return {
    read: async () => (text === undefined ? undefined : (JSON.parse(text) as T)),
    write: async (value) => void (text = JSON.stringify(value)),
  };
}
