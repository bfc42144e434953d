// Holds the catalogue to its three readers: the error classes (each declares codes of the
// catalogue, and every error thrown at a caller is one), the service and the classes together
// (every code is used), and the table of docs/errors.md (it lists exactly the catalogue's codes).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as root from "../index.js";
import { AgentcageError, ERROR_CODES } from "./index.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** Errors that never reach a caller as themselves, and why; every other error class is an AgentcageError. */
const PLAIN_ERRORS: Readonly<Record<string, string>> = {
  Refused: "archive-copy's own way out of its read loop; it becomes a HarvestRefusal value",
  ChangesRefused: "caught by harvestChanges, which answers a HarvestRefusal value instead",
  EarlyEnd: "an abort reason an adapter hands the runtime; it ends the Run as an Outcome reason, never thrown at a caller",
  GoneError:
    "whileAlive's one rejection, a peer shown gone: each caller catches it and says why in its own sentence (an Outcome's error, a refusal), never thrown at a caller",
  NewerSchemaError:
    "the Postgres Run store's refusal of a database whose schema is newer than its code: caught by serve's start (service-store.ts) and said as a ServeError, never thrown at a caller",
  ServiceRefusal: "the command's own: caught by answered() in src/cli/service-client.ts, said on stderr and made the exit status, never thrown at a caller",
};

function sources(): { path: string; text: string }[] {
  return readdirSync(join(repoRoot, "src"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
    .map((name) => `src/${name.split("\\").join("/")}`)
    .sort()
    .map((path) => ({ path, text: readFileSync(join(repoRoot, path), "utf8") }));
}

/** Each `class X extends AgentcageError { ... }` and the codes its `code` declaration names. */
function declaredCodes(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const { text } of sources()) {
    for (const [, name, body] of text.matchAll(/class (\w+) extends AgentcageError \{([\s\S]*?)\n\}/g)) {
      const declaration = /readonly code\b([^;]*);/.exec(body ?? "")?.[1] ?? "";
      const codes = [...declaration.matchAll(/"(\w+)"/g)].map((m) => m[1] ?? "");
      found.set(name ?? "", codes);
    }
  }
  return found;
}

/** The first column of the table of docs/errors.md, the page that documents the codes. */
function documentedCodes(): string[] {
  const page = readFileSync(join(repoRoot, "docs", "errors.md"), "utf8");
  return [...page.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1] ?? "");
}

describe("the catalogue of error codes", () => {
  it("names each code in snake_case with a one-line meaning", () => {
    for (const [code, meaning] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z]+(?:_[a-z]+)*$/);
      expect(meaning).toMatch(/^[^\n]{10,}$/);
    }
  });

  it("is what every error class declares, and every error class but the internal ones is an AgentcageError", () => {
    const declared = declaredCodes();
    expect(declared.size).toBeGreaterThan(10);
    for (const [name, codes] of declared) {
      expect(codes, name).not.toEqual([]);
      for (const code of codes) expect(Object.keys(ERROR_CODES), `${name} declares ${code}`).toContain(code);
    }
    const outside = sources().filter(({ path }) => !path.startsWith("src/errors/"));
    const plain = outside.flatMap(({ text }) => [...text.matchAll(/class (\w+) extends Error\b/g)].map((m) => m[1]));
    expect(plain.sort()).toEqual(Object.keys(PLAIN_ERRORS).sort());
  });

  it("has no code that nothing uses: each is declared by a class or answered by the service", () => {
    const outside = sources().filter(({ path }) => !path.startsWith("src/errors/"));
    const declared = new Set([...declaredCodes().values()].flat());
    for (const code of Object.keys(ERROR_CODES)) {
      const used = declared.has(code) || outside.some(({ path, text }) => path.startsWith("src/server/") && text.includes(`errorBody("${code}"`));
      expect(used, code).toBe(true);
    }
  });

  it("is listed exactly by the table of docs/errors.md", () => {
    const listed = documentedCodes();
    expect([...listed].sort()).toEqual(Object.keys(ERROR_CODES).sort());
    expect(new Set(listed).size).toBe(listed.length);
  });
});

describe("AgentcageError", () => {
  it("is the base of every error class the package root exports, the internal abort reason aside", () => {
    const classes = Object.entries(root).filter(([, value]) => typeof value === "function" && value.prototype instanceof Error);
    expect(classes.length).toBeGreaterThan(5);
    for (const [name, value] of classes) {
      if (name in PLAIN_ERRORS || value === AgentcageError) continue;
      expect((value as { prototype: unknown }).prototype instanceof AgentcageError, name).toBe(true);
    }
    expect(root.AgentcageError).toBe(AgentcageError);
    expect(root.ERROR_CODES).toBe(ERROR_CODES);
  });

  it("carries its code, its message and its cause, and keeps its class's name", () => {
    const disk = new Error("EIO: i/o error");
    const error = new root.StagingError("io", 'input "a" was not copied', { cause: disk });
    expect(error).toBeInstanceOf(AgentcageError);
    expect(error).toMatchObject({ code: "staging_failed", kind: "io", name: "StagingError", message: 'input "a" was not copied', cause: disk });
    expect(new root.StagingError("invalid_input", "m").code).toBe("invalid_inputs");
    expect(new root.MountTableError("m")).toMatchObject({ code: "invalid_mount_table", name: "MountTableError" });
  });
});
