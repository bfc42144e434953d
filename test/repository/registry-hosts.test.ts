// No tracked file of the repository names a package registry's host (npm's, PyPI's, a container
// registry's, a distribution's mirror): an example names a host reserved for documentation instead
// (api.example.com). The hosts are held here as the first 16 hex digits of their SHA-256, so this
// file names none of them either; every dotted name in every tracked text file, and each of its
// parent domains, is hashed and looked up.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** The registries of npm, yarn, GitHub's packages, Python, Rust, Ruby, Go (its module proxy and checksum database), Maven Central, Gradle's plugins, NuGet, Packagist, Docker Hub, GitHub's, Quay's, Google's, Microsoft's and AWS's public container registries, Debian's and Ubuntu's archives, Alpine's CDN, conda, Hackage, CPAN, Hex and CocoaPods' CDN. */
const REGISTRY_HOSTS = new Set([
  "0dc11026ac75c015",
  "70bb4000cd2fab03",
  "05b16d11407cc4e4",
  "0e10f3b8bb2a1ef3",
  "a4aa2ac280bb8d1a",
  "d6d7019ca9fcbf07",
  "c899567ee9068517",
  "9ab2ad663f3d2a5e",
  "789e46d79514e280",
  "3d01f3609be82d98",
  "eb7e11c7f9ecbcf4",
  "71741fe2460a6150",
  "be549aaf28b65cd0",
  "00a7dc5a0cc38858",
  "9da5f32d96412512",
  "43c04ed1dabe979b",
  "317d2d52829b7812",
  "f483c1237e51a1fa",
  "7117c828d2afa4e2",
  "2c77714df232b07f",
  "4189e62695dc2b69",
  "dcb6cc3991f9799e",
  "5e9dacd3577946a2",
  "30d0ab9692eb4123",
  "e83cc4bcd94e4ed5",
  "0fd460f0568e29c1",
  "271dacc9f4d0caf8",
  "70cca582c4895337",
  "24f81de5fc499525",
  "be2f919014d7cedb",
  "e680c440a2e92079",
  "1ba4e37997a2e986",
  "c2b35955576ffa71",
  "a0f007d863a0ed19",
  "e514b0d3b0562f54",
  "8454fabc8b630901",
  "4db460c55b85212e",
  "15bdb44dafa6843b",
  "8400b8bd0d6e064d",
  "826cd146d6478a29",
  "384fe328e9cc3d5c",
  "f4114950ec7b2c33",
]);

const DOTTED = /[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+/gi;

const digest = (host: string): string => createHash("sha256").update(host).digest("hex").slice(0, 16);

/** The hosts of `digests` a text names: each dotted name, and each of its parents of two labels or more. */
function hostsIn(text: string, digests: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  for (const [name] of text.matchAll(DOTTED)) {
    const labels = name.toLowerCase().split(".");
    for (let from = 0; from <= labels.length - 2; from++) {
      const host = labels.slice(from).join(".");
      if (digests.has(digest(host))) found.add(host);
    }
  }
  return [...found];
}

describe("the repository", () => {
  it("names no package registry's host in any tracked file", () => {
    const files = execFileSync("git", ["ls-files", "-z"], { cwd: REPO, encoding: "utf8" })
      .split("\0")
      .filter((file) => file !== "");
    const named = files.flatMap((file) => {
      const bytes = readFileSync(join(REPO, file));
      // A binary file (a NUL in it) is not text anyone reads.
      if (bytes.includes(0)) return [];
      return hostsIn(bytes.toString("utf8"), REGISTRY_HOSTS).map((host) => `${file}: ${host}`);
    });
    expect(named).toEqual([]);
  });

  it("finds a listed host wherever a text names it: alone, in a URL, as the parent of a longer name", () => {
    // A probe host of the documentation's own, listed by its digest as the registries are.
    const host = "packages.example.test";
    const listed = new Set([digest(host)]);
    expect(hostsIn(`--allow ${host}:443`, listed)).toEqual([host]);
    expect(hostsIn(`https://${host.toUpperCase()}/left-pad`, listed)).toEqual([host]);
    expect(hostsIn(`mirror.${host}`, listed)).toEqual([host]);
    expect(hostsIn("--allow api.example.com:443, apt-get install docker.io", REGISTRY_HOSTS)).toEqual([]);
  });
});
