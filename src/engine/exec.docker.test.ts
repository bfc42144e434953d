// An exec in a running container through the real engine: its stdin and stdout are one duplex
// (what a caller writes, the program reads; what it prints, the caller reads, byte for byte, in both
// directions at once), its stderr comes apart, and its exit code is told after its output ends.

import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { docker, TEST_IMAGE } from "../../test/support/engine.js";
import { createDockerEngine } from "./docker.js";
import type { ContainerExec } from "./engine.js";

const engine = createDockerEngine();
let ids: string[] = [];
afterEach(() => {
  for (const id of ids) docker("rm", "--force", id);
  ids = [];
});

function container(): string {
  const id = docker("run", "--detach", "--init", "--cap-drop", "ALL", "--read-only", "--user", "10002:10002", "--network", "none", TEST_IMAGE, "sleep", "300");
  ids.push(id);
  return id;
}

async function drain(readable: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of readable) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** One line the duplex gives back (the program answers a line at a time). */
function nextLine(session: ContainerExec): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (chunk: Buffer): void => {
      text += chunk.toString("utf8");
      if (!text.includes("\n")) return;
      session.stdio.off("data", onData);
      session.stdio.pause();
      resolve(text);
    };
    session.stdio.on("data", onData);
    session.stdio.once("error", reject);
    // Paused by the line before: a new listener alone does not restart it.
    session.stdio.resume();
  });
}

describe("the Docker engine's exec", () => {
  it("pipes stdin to the program and its stdout back, 1 MiB of random bytes intact, and tells exit 0 once it ends", async () => {
    const id = container();
    const session = await engine.exec(id, ["cat"]);
    const bytes = randomBytes(1024 * 1024);
    const back = drain(session.stdio);
    session.stdio.end(bytes);
    expect((await back).equals(bytes)).toBe(true);
    expect(await session.exit).toBe(0);
  });

  it("speaks both ways while open: each line written is answered before the next is sent", async () => {
    const id = container();
    // A line-at-a-time echo: an answer arrives only if the line reached it while stdin stays open.
    const session = await engine.exec(id, ["sh", "-c", 'while read -r line; do echo "got $line"; done']);
    for (const word of ["one", "two", "three"]) {
      const answer = nextLine(session);
      session.stdio.write(`${word}\n`);
      expect(await answer).toBe(`got ${word}\n`);
    }
    session.stdio.resume();
    session.stdio.end();
    expect(await session.exit).toBe(0);
  });

  it("keeps stderr apart from stdout and tells a non-zero exit", async () => {
    const id = container();
    const session = await engine.exec(id, ["sh", "-c", "echo out; echo err >&2; exit 3"]);
    session.stdio.end();
    const [out, err] = await Promise.all([drain(session.stdio), drain(session.stderr)]);
    expect(out.toString()).toBe("out\n");
    expect(err.toString()).toBe("err\n");
    expect(await session.exit).toBe(3);
  });

  it("runs as the container's own user, in no TTY", async () => {
    const id = container();
    const session = await engine.exec(id, ["sh", "-c", "id -u; [ -t 0 ] && echo tty || echo no-tty"]);
    session.stdio.end();
    expect((await drain(session.stdio)).toString()).toBe("10002\nno-tty\n");
  });

  it("tells a program that is not there by its exit code, and refuses a container that is not running or not there", async () => {
    const id = container();
    const missing = await engine.exec(id, ["/no/such/program"]);
    missing.stdio.end();
    await drain(missing.stdio);
    // 126 from runc (the engine could not start it), 127 from a shell: either says "not run".
    expect([126, 127]).toContain(await missing.exit);
    docker("stop", "--time", "0", id);
    await expect(engine.exec(id, ["true"])).rejects.toMatchObject({ statusCode: 409 });
    await expect(engine.exec("agentcage-no-such-container", ["true"])).rejects.toMatchObject({ statusCode: 404 });
  });

  it("stops the program's stdin when the caller drops the connection, so a reader of it ends", async () => {
    const id = container();
    const session = await engine.exec(id, ["sh", "-c", 'while read -r line; do echo "got $line"; done']);
    const answer = nextLine(session);
    session.stdio.write("partial\n");
    expect(await answer).toBe("got partial\n");
    session.stdio.destroy();
    expect(await session.exit).toBe(0);
    expect(docker("top", id)).not.toContain("read");
  });
});
