// A tar archive in memory from a map of names to contents: what a service test uploads as a Run's inputs.

import tar from "tar-stream";

export async function tarOf(files: Readonly<Record<string, string>>): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  for (const [name, content] of Object.entries(files))
    await new Promise<void>((resolve, reject) => pack.entry({ name }, content, (error) => (error ? reject(error) : resolve())));
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}
