// The tenants' API keys: `ac_<prefix>_<secret>`, the prefix public (it names the key in lists and
// the audit log), the secret shown once at creation and never kept. The service keeps a keyed hash
// of it (HMAC-SHA256 under a pepper of its own, in service/key-pepper): the secret is 256 random
// bits, so a slow hash would add nothing but CPU an attacker could make the service spend.
// Compared in constant time; a key that is revoked or past its expiry fails at its next request, and
// the streams it holds open end then too (key-streams.ts).

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type DurableJson, durableJson, memoryJson } from "./durable-json.js";
import type { Scope } from "../caller.js";
import { KEY_LAST_USE_WRITE_MS } from "../limits.js";

/** What the service says of a key: never its secret, never its hash. */
export type KeyRecord = {
  readonly prefix: string;
  readonly tenant: string;
  readonly scope: Scope;
  readonly createdAt: string;
  /** Who made it: a key's prefix, or the Operator's token. */
  readonly createdBy: string;
  readonly expiresAt?: string;
  readonly lastUsedAt?: string;
  readonly revokedAt?: string;
};

type StoredKey = KeyRecord & { readonly hash: string };

/** Why a presented key was refused: never which part of it was wrong beyond this. */
export type KeyRefusal = "malformed" | "unknown" | "revoked" | "expired";

/**
 * The keys: `verify`, `get` and `list` answer from the view this process holds, kept current by every
 * change made through it (a store shared by replicas refreshes it); a change resolves once it is stored.
 */
export type KeyStore = {
  /** Makes a key; its whole text is in the answer only. */
  readonly create: (
    asked: { readonly tenant: string; readonly scope: Scope; readonly expiresAt?: string },
    by: string,
  ) => Promise<{ readonly key: string; readonly record: KeyRecord }>;
  readonly list: () => readonly KeyRecord[];
  /** The key with this prefix as it stands now (revoked ones too); undefined when there is none. */
  readonly get: (prefix: string) => KeyRecord | undefined;
  /** Revokes a key at once; undefined when no key has that prefix. A key revoked before stays as it was. */
  readonly revoke: (prefix: string) => Promise<KeyRecord | undefined>;
  /** The key a bearer token is, or why it is not one that may be used now. */
  readonly verify: (presented: string) => KeyRecord | KeyRefusal;
  /** Writes the last uses not yet on disk (they are written at most every KEY_LAST_USE_WRITE_MS). */
  readonly flush: () => Promise<void>;
};

/** The shape of a key: `ac_`, 12 hex digits of prefix, `_`, 43 base64url characters of secret. */
export const KEY_PATTERN = /^ac_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;
export const KEY_PREFIX_PATTERN = /^[0-9a-f]{12}$/;

type KeysFile = { readonly keys: StoredKey[] };

/** The file store's keys: their hashes in service/keys.json, the pepper in service/key-pepper. */
export async function openKeyStore(serviceDir: string): Promise<KeyStore> {
  return keyStoreOver(await keyPepper(join(serviceDir, "key-pepper")), durableJson<KeysFile>(join(serviceDir, "keys.json")));
}

/** The in-memory store's, under a pepper of its own. */
export function createMemoryKeyStore(): Promise<KeyStore> {
  return keyStoreOver(randomBytes(32), memoryJson<KeysFile>());
}

async function keyStoreOver(pepper: Buffer, file: DurableJson<KeysFile>): Promise<KeyStore> {
  const keys = new Map<string, StoredKey>(((await file.read())?.keys ?? []).map((key) => [key.prefix, key]));
  const hashOf = (secret: string) => createHmac("sha256", pepper).update(secret).digest();
  const save = () => file.write({ keys: [...keys.values()] });
  const shown = ({ hash: _hash, ...record }: StoredKey): KeyRecord => record;
  let unsaved: NodeJS.Timeout | undefined;
  const saveSoon = () => {
    unsaved ??= setTimeout(() => {
      unsaved = undefined;
      void save().catch(() => undefined);
    }, KEY_LAST_USE_WRITE_MS).unref();
  };
  return {
    create: async ({ tenant, scope, expiresAt }, by) => {
      let prefix = randomBytes(6).toString("hex");
      while (keys.has(prefix)) prefix = randomBytes(6).toString("hex");
      const secret = randomBytes(32).toString("base64url");
      const stored: StoredKey = {
        prefix,
        tenant,
        scope,
        createdAt: new Date().toISOString(),
        createdBy: by,
        ...(expiresAt === undefined ? {} : { expiresAt }),
        hash: hashOf(secret).toString("hex"),
      };
      keys.set(prefix, stored);
      await save();
      return { key: `ac_${prefix}_${secret}`, record: shown(stored) };
    },
    list: () => [...keys.values()].map(shown),
    get: (prefix) => {
      const stored = keys.get(prefix);
      return stored === undefined ? undefined : shown(stored);
    },
    revoke: async (prefix) => {
      const stored = keys.get(prefix);
      if (stored === undefined) return undefined;
      if (stored.revokedAt !== undefined) return shown(stored);
      const revoked = { ...stored, revokedAt: new Date().toISOString() };
      keys.set(prefix, revoked);
      await save();
      return shown(revoked);
    },
    verify: (presented) => {
      const match = KEY_PATTERN.exec(presented);
      if (match === null) return "malformed";
      const [, prefix = "", secret = ""] = match;
      const stored = keys.get(prefix);
      if (stored === undefined) return "unknown";
      if (!timingSafeEqual(hashOf(secret), Buffer.from(stored.hash, "hex"))) return "unknown";
      if (stored.revokedAt !== undefined) return "revoked";
      if (stored.expiresAt !== undefined && Date.parse(stored.expiresAt) <= Date.now()) return "expired";
      const used = { ...stored, lastUsedAt: new Date().toISOString() };
      keys.set(prefix, used);
      saveSoon();
      return shown(used);
    },
    flush: async () => {
      if (unsaved === undefined) return;
      clearTimeout(unsaved);
      unsaved = undefined;
      await save();
    },
  };
}

/** The service's pepper: made once, 32 random bytes, readable by the service's user only. */
async function keyPepper(path: string): Promise<Buffer> {
  const existing = await readFile(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (existing !== undefined && existing.length >= 32) return existing;
  const pepper = randomBytes(32);
  // wx: two starts at once must not each make one; the second reads the first's.
  await writeFile(path, pepper, { mode: 0o600, flag: "wx" }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  return readFile(path);
}
