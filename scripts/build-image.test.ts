// The pure parts of building images: clis.env parsing, the inputs digest, the context tar and the
// daemon's progress stream. The real builds run in provisioning (scripts/provision.sh).

import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import tar from "tar-stream";
import { afterEach, describe, expect, it } from "vitest";
import { agentBuildArgs, buildCaCertsFile, inputsHash, packContext, parseClisEnv, readBuildProgress, readContext, type ContextFile } from "./build-image.js";

const CLIS_ENV = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../images/agent/clis.env");
const CHUNK_SIZES = [1, 2, 3, 7, 64, Number.MAX_SAFE_INTEGER];

const file = (name: string, contents: string, executable = false): ContextFile => ({ name, executable, contents: Buffer.from(contents) });
const FILES = [file("Dockerfile", "FROM scratch\n"), file("fetch.sh", "#!/bin/sh\n", true), file("clis.env", "A=1\n")];
const ARGS = { CLAUDE_VERSION: "1.0.0", CODEX_VERSION: "0.1.0" };

describe("parseClisEnv", () => {
  it("reads the repository's clis.env into the four build args", async () => {
    const values = parseClisEnv(await readFile(CLIS_ENV, "utf8"));
    const args = agentBuildArgs(values, {});
    expect(Object.keys(args)).toEqual(["CLAUDE_VERSION", "CLAUDE_INTEGRITY", "CODEX_VERSION", "CODEX_INTEGRITY"]);
    expect(args["CLAUDE_VERSION"]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(args["CLAUDE_INTEGRITY"]).toMatch(/^sha512-[A-Za-z0-9+/]+=*$/);
    expect(args["CODEX_INTEGRITY"]).toMatch(/^sha512-[A-Za-z0-9+/]+=*$/);
  });

  it("skips comments and blank lines, takes the last of a repeated name, and unquotes", () => {
    expect(parseClisEnv("# c\n\nA=1\r\n  B='x=y'\nA=\"2\"\nC=\n")).toEqual({ A: "2", B: "x=y", C: "" });
  });

  it("refuses a line that is not NAME=value, quoting it", () => {
    expect(() => parseClisEnv("A=1\nexport B=2\n")).toThrow('line 2 of clis.env ("export B=2") is not NAME=value');
  });

  it("refuses a value a shell would not read literally", () => {
    expect(() => parseClisEnv("A=$(id)\n")).toThrow(/A in clis\.env has the value "\$\(id\)"/);
    expect(() => parseClisEnv("A=one two\n")).toThrow(/A in clis\.env/);
  });
});

describe("agentBuildArgs", () => {
  const clis = { CLAUDE_VERSION: "1", CLAUDE_INTEGRITY: "sha512-a", CODEX_VERSION: "2", CODEX_INTEGRITY: "sha512-b" };

  it("says which pinned value clis.env lacks", () => {
    const { CODEX_INTEGRITY: _, ...partial } = clis;
    expect(() => agentBuildArgs(partial, {})).toThrow("clis.env does not set CODEX_INTEGRITY; add it as one CODEX_INTEGRITY=value line");
  });

  it("adds BASE_IMAGE and EXTRA_PACKAGES only when the environment sets them", () => {
    expect(agentBuildArgs(clis, {})).toEqual(clis);
    expect(agentBuildArgs(clis, { AGENTCAGE_BASE_IMAGE: "mirror/debian:12", AGENTCAGE_AGENT_PACKAGES: "git" })).toEqual({
      ...clis,
      BASE_IMAGE: "mirror/debian:12",
      EXTRA_PACKAGES: "git",
    });
  });
});

describe("buildCaCertsFile", () => {
  it("prefers AGENTCAGE_BUILD_CA_CERTS, lets it be empty to mean none, else takes NODE_EXTRA_CA_CERTS", () => {
    expect(buildCaCertsFile({}, false)).toBeUndefined();
    expect(buildCaCertsFile({}, true)).toBe("/etc/ssl/certs/ca-certificates.crt");
    expect(buildCaCertsFile({ NODE_EXTRA_CA_CERTS: "/n.crt" })).toBe("/n.crt");
    expect(buildCaCertsFile({ NODE_EXTRA_CA_CERTS: "/n.crt", AGENTCAGE_BUILD_CA_CERTS: "/a.crt" })).toBe("/a.crt");
    expect(buildCaCertsFile({ NODE_EXTRA_CA_CERTS: "/n.crt", AGENTCAGE_BUILD_CA_CERTS: "" })).toBeUndefined();
  });
});

describe("inputsHash", () => {
  const base = inputsHash(FILES, ARGS);

  it("is a sha256 that does not depend on the order of files or args", () => {
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(inputsHash([...FILES].reverse(), { CODEX_VERSION: "0.1.0", CLAUDE_VERSION: "1.0.0" })).toBe(base);
  });

  it.each([
    ["a file's contents", [file("Dockerfile", "FROM scratch \n"), FILES[1], FILES[2]], ARGS, "Dockerfile"],
    ["a file's executable bit", [FILES[0], file("fetch.sh", "#!/bin/sh\n", false), FILES[2]], ARGS, "Dockerfile"],
    ["a file's name", [FILES[0], file("fetch2.sh", "#!/bin/sh\n", true), FILES[2]], ARGS, "Dockerfile"],
    ["an added file", [...FILES, file("extra", "")], ARGS, "Dockerfile"],
    ["a build arg's value", FILES, { ...ARGS, CODEX_VERSION: "0.1.1" }, "Dockerfile"],
    ["an added build arg", FILES, { ...ARGS, BASE_IMAGE: "debian:bookworm-slim" }, "Dockerfile"],
    ["the Dockerfile's name", FILES, ARGS, "clis.env"],
  ] as const)("changes when %s changes", (_, files, args, dockerfile) => {
    expect(inputsHash(files as readonly ContextFile[], args, dockerfile)).not.toBe(base);
  });

  it("does not let one field run into the next", () => {
    expect(inputsHash([file("ab", "c")], {})).not.toBe(inputsHash([file("a", "bc")], {}));
    expect(inputsHash([], { A: "BC" })).not.toBe(inputsHash([], { AB: "C" }));
  });
});

describe("packContext", () => {
  it("makes a tar of parent directories then files, root-owned at time zero, modes 0755 or 0644", async () => {
    const entries: { name: string; type: string; mode: number; uid: number; mtime: number; body: string }[] = [];
    const extract = tar.extract();
    packContext([file("app/test/main.js", "x"), file("Dockerfile", "FROM scratch\n"), file("run.sh", "#!", true)]).pipe(extract);
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      const { name, type, mode, uid, mtime } = entry.header;
      entries.push({ name, type, mode, uid, mtime: mtime.getTime(), body: Buffer.concat(chunks).toString() });
    }
    expect(entries).toEqual([
      { name: "app/", type: "directory", mode: 0o755, uid: 0, mtime: 0, body: "" },
      { name: "app/test/", type: "directory", mode: 0o755, uid: 0, mtime: 0, body: "" },
      { name: "Dockerfile", type: "file", mode: 0o644, uid: 0, mtime: 0, body: "FROM scratch\n" },
      { name: "app/test/main.js", type: "file", mode: 0o644, uid: 0, mtime: 0, body: "x" },
      { name: "run.sh", type: "file", mode: 0o755, uid: 0, mtime: 0, body: "#!" },
    ]);
  });
});

describe("readContext", () => {
  let dir = "";
  afterEach(async () => {
    if (dir !== "") await rm(dir, { recursive: true, force: true });
  });

  async function scratch(): Promise<string> {
    dir = await mkdtemp(path.join(tmpdir(), "agentcage-context-"));
    await mkdir(path.join(dir, "ctx", "sub"), { recursive: true });
    await writeFile(path.join(dir, "ctx", "Dockerfile"), "FROM scratch\n");
    await writeFile(path.join(dir, "ctx", "sub", "run.sh"), "#!/bin/sh\n");
    await chmod(path.join(dir, "ctx", "sub", "run.sh"), 0o700);
    await writeFile(path.join(dir, "elsewhere.js"), "main();\n");
    return path.join(dir, "ctx");
  }

  it("reads every file with its executable bit, and extra files under their context names", async () => {
    const ctx = await scratch();
    const files = await readContext(ctx, [{ name: "app/main.js", from: path.join(dir, "elsewhere.js") }]);
    expect(files.map((f) => [f.name, f.executable, f.contents.toString()])).toEqual([
      ["Dockerfile", false, "FROM scratch\n"],
      ["sub/run.sh", true, "#!/bin/sh\n"],
      ["app/main.js", false, "main();\n"],
    ]);
  });

  it("sends an extra file executable or not as asked, whatever its host mode", async () => {
    const ctx = await scratch();
    const files = await readContext(ctx, [
      { name: "bin/run.sh", from: path.join(ctx, "sub", "run.sh"), executable: false },
      { name: "bin/main.js", from: path.join(dir, "elsewhere.js"), executable: true },
    ]);
    expect(files.filter((f) => f.name.startsWith("bin/")).map((f) => [f.name, f.executable])).toEqual([
      ["bin/run.sh", false],
      ["bin/main.js", true],
    ]);
  });

  it("refuses a symbolic link, an extra file outside the context, and a name taken twice", async () => {
    const ctx = await scratch();
    await expect(readContext(ctx, [{ name: "../main.js", from: path.join(dir, "elsewhere.js") }])).rejects.toThrow(
      'extra file name "../main.js" is not inside the build context',
    );
    await expect(readContext(ctx, [{ name: "Dockerfile", from: path.join(dir, "elsewhere.js") }])).rejects.toThrow('extra file "Dockerfile" is already in');
    await symlink("Dockerfile", path.join(ctx, "link"));
    await expect(readContext(ctx)).rejects.toThrow(/link is not a regular file or directory/);
  });
});

describe("readBuildProgress", () => {
  // Lines as the 20.10 engine's legacy builder sends them.
  const SUCCESS = [
    { stream: "Step 1/2 : FROM debian:bookworm-slim" },
    { stream: "\n" },
    { stream: " ---> 7e22714756a5\n" },
    { aux: { ID: "sha256:0123abcd" } },
    { stream: "Successfully built 0123abcd\n" },
  ];
  const FAILURE = [
    { stream: "Step 2/2 : RUN false\n" },
    { stream: "\u001b[91mfetch-clis: integrity mismatch\n\u001b[0m" },
    { stream: "Removing intermediate container 019a8f9e4df6\n" },
    {
      errorDetail: { code: 1, message: "The command '/bin/sh -c false' returned a non-zero code: 1" },
      error: "The command '/bin/sh -c false' returned a non-zero code: 1",
    },
  ];

  async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, Math.min(bytes.length, i + size));
  }
  const bytesOf = (events: readonly object[]): Buffer => Buffer.from(events.map((e) => `${JSON.stringify(e)}\r\n`).join(""));

  it.each(CHUNK_SIZES)("writes every progress line and returns the image id at chunk size %s", async (size) => {
    let written = "";
    const progress = await readBuildProgress(chunked(bytesOf(SUCCESS), size), (text) => (written += text));
    expect(progress).toEqual({ imageId: "sha256:0123abcd", lastLine: "Successfully built 0123abcd" });
    expect(written).toBe("Step 1/2 : FROM debian:bookworm-slim\n ---> 7e22714756a5\nSuccessfully built 0123abcd\n");
  });

  it.each(CHUNK_SIZES)("returns the daemon's error message of a failed step at chunk size %s", async (size) => {
    let written = "";
    const progress = await readBuildProgress(chunked(bytesOf(FAILURE), size), (text) => (written += text));
    expect(progress).toEqual({ error: "The command '/bin/sh -c false' returned a non-zero code: 1", lastLine: "fetch-clis: integrity mismatch" });
    expect(written).toContain("fetch-clis: integrity mismatch");
  });
});
