// The floor of a checked copy: per entry, the system calls the Harvest makes to copy a tree nothing
// can trick, done from this thread as plainly as they can be (16 files at once, as the Harvest
// does), with nothing else: no limits, no refusals built, no names kept. What the Harvest costs
// beyond this is its own; what this costs beyond cp -a is the price of the checks, on Node.

import { constants } from "node:fs";
import { chmod, lstat, mkdir, open, opendir, type FileHandle } from "node:fs/promises";
import pLimit from "p-limit";

const OPEN_DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const OPEN_FILE = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const CHUNK_BYTES = 256 * 1024;
const PARALLEL_FILES = 16;

/**
 * A directory: opened without following a link, fstat'ed, made and chmod'ed at the destination,
 * listed through its descriptor, fstat'ed again; each entry lstat'ed. A file: opened through the
 * directory's descriptor without following a link, fstat'ed, created O_EXCL|O_NOFOLLOW, fchmod'ed,
 * read and written, fstat'ed again, both closed.
 */
export async function checkedCopy(source: string, destination: string): Promise<void> {
  const limit = pLimit(PARALLEL_FILES);
  const chunks: Buffer[] = [];
  const copies: Array<Promise<void>> = [];
  const copyFile = async (from: string, to: string): Promise<void> => {
    const input = await open(from, OPEN_FILE);
    try {
      const size = Number((await input.stat({ bigint: true })).size);
      const output = await open(to, CREATE, 0o644);
      const chunk = chunks.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES);
      try {
        await output.chmod(0o644);
        for (let copied = 0; copied < size; ) {
          const { bytesRead } = await input.read(chunk, 0, Math.min(CHUNK_BYTES, size - copied), null);
          if (bytesRead === 0) break;
          await output.write(chunk, 0, bytesRead);
          copied += bytesRead;
        }
        await input.stat({ bigint: true });
      } finally {
        chunks.push(chunk);
        await output.close();
      }
    } finally {
      await input.close();
    }
  };
  const copyDirectory = async (from: string, to: string): Promise<void> => {
    const handle: FileHandle = await open(from, OPEN_DIRECTORY);
    await handle.stat({ bigint: true });
    await mkdir(to, { mode: 0o755 });
    await chmod(to, 0o755);
    const pinned = `/proc/self/fd/${handle.fd}`;
    const mine: Array<Promise<void>> = [];
    for await (const entry of await opendir(pinned, { bufferSize: 512 })) {
      const location = `${pinned}/${entry.name}`;
      const stats = await lstat(location, { bigint: true });
      if (stats.isDirectory()) await copyDirectory(location, `${to}/${entry.name}`);
      else mine.push(limit(() => copyFile(location, `${to}/${entry.name}`)));
    }
    await handle.stat({ bigint: true });
    copies.push(Promise.all(mine).then(() => handle.close()));
  };
  await copyDirectory(source, destination);
  await Promise.all(copies);
}
