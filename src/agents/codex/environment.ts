// Where codex keeps its state: its home on the container's tmpfs, gone with the container, where a
// ChatGPT login (auth.json) is mounted too.

/**
 * codex will not create a CODEX_HOME that does not exist, and a codex login's auth.json is mounted
 * into it (a file mount makes its parent directory root's): the tmpfs itself is the one that works.
 */
export const CODEX_HOME = "/tmp";

/** Where codex looks for its login: auth.json in its home. */
export const CODEX_AUTH_PATH = `${CODEX_HOME}/auth.json`;
