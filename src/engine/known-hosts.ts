// Whose engine an ssh:// address reaches: the host's key must be one ~/.ssh/known_hosts holds for
// that host and port, as ssh and the docker CLI require, or nothing is sent (a machine in the middle
// would otherwise be handed every Run). Plain and hashed (`|1|salt|hash`) names, `[host]:port`,
// `*`/`?` patterns and `@revoked` are read; `@cert-authority` lines are not trusted here.

import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** What verifying a host key came to: trusted, or why not in words that say what to do. */
export type HostKeyVerdict = { readonly ok: true } | { readonly ok: false; readonly why: string };

/** The file ssh reads: ~/.ssh/known_hosts of this process's HOME. */
export function knownHostsFile(): string {
  return join(homedir(), ".ssh", "known_hosts");
}

/** The name a host is written under in known_hosts: the host alone on port 22, else `[host]:port`. */
function hostName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function matchesPattern(pattern: string, name: string): boolean {
  if (pattern.startsWith("|1|")) {
    const [salt = "", hash = ""] = pattern.slice(3).split("|");
    return createHmac("sha1", Buffer.from(salt, "base64")).update(name).digest("base64") === hash;
  }
  // As ssh matches them: against the name the host is written under (`[host]:port` off port 22).
  const glob = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|\\[\]]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
  );
  return glob.test(name);
}

/** Verifies `key` (the SSH wire blob the server showed) for host:port against the known_hosts text. */
export function verifyHostKey(text: string, host: string, port: number, key: Buffer): HostKeyVerdict {
  const name = hostName(host, port);
  const entries = text
    .split("\n")
    .map((raw) => raw.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const fields = line.split(/\s+/);
      const marker = fields[0]?.startsWith("@") === true ? fields.shift() : undefined;
      const [patterns = "", , blob = ""] = fields;
      const names = patterns.split(",");
      const negated = names.some((p) => p.startsWith("!") && matchesPattern(p.slice(1), name));
      const named = !negated && names.some((p) => !p.startsWith("!") && matchesPattern(p, name));
      return { marker, named, same: Buffer.from(blob, "base64").equals(key) };
    })
    .filter((entry) => entry.named);
  // Revoked wins wherever its line is, as in ssh.
  if (entries.some((entry) => entry.marker === "@revoked" && entry.same)) {
    return { ok: false, why: `the host key ${name} showed is marked @revoked in known_hosts; do not use this engine until its key is replaced` };
  }
  const plain = entries.filter((entry) => entry.marker === undefined);
  if (plain.some((entry) => entry.same)) return { ok: true };
  return {
    ok: false,
    why:
      plain.length > 0
        ? `the host key ${name} showed is not the one known_hosts holds for it (it changed, or another machine answers); check the engine's key, then mend known_hosts (ssh-keygen -R "${name}")`
        : `${name} is not in known_hosts; check its key's fingerprint with its operator, then add it (ssh-keyscan${port === 22 ? "" : ` -p ${port}`} ${host} >> ~/.ssh/known_hosts)`,
  };
}

/**
 * A verifier for ssh2's hostVerifier, reading the file each time a key is shown (so a key added
 * meanwhile is taken). ssh2 says only "Host denied" when it refuses: connection-words.ts says what to do.
 */
export function hostVerifierFor(host: string, port: number, file: string = knownHostsFile()): (key: Buffer) => boolean {
  return (key) => {
    try {
      return verifyHostKey(readFileSync(file, "utf8"), host, port, key).ok;
    } catch {
      return false;
    }
  };
}
