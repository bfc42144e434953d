// The proxy's own masker: what its log lines must never hold. Every credential ever registered
// stays masked for good; a Run's token only while its Run is live.
// Invariant: the masker handed out covers every credential added and every live token; any change
// drops it, and the next use builds it afresh.

import { createMasker, type Masker } from "../redact/index.js";

export type ProxySecrets = {
  /** A Run was registered: its credential (kept for good) and its token (until `drop`). */
  readonly add: (runId: string, token: string, credential: string) => void;
  /** A Run was revoked: its token needs no masking any more. */
  readonly drop: (runId: string) => void;
  readonly masker: () => Masker;
};

export function createProxySecrets(): ProxySecrets {
  const credentials = new Set<string>();
  const tokens = new Map<string, string>(); // runId -> token, for the masker only
  let masker: Masker | undefined;
  return {
    add: (runId, token, credential) => {
      tokens.set(runId, token);
      credentials.add(credential);
      masker = undefined;
    },
    drop: (runId) => {
      tokens.delete(runId);
      masker = undefined;
    },
    masker: () => {
      masker ??= createMasker([...credentials, ...tokens.values()]);
      return masker;
    },
  };
}
