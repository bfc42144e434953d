/**
 * The codex adapter: OpenAI's codex CLI, its argv (`codex exec --json`), its stdin and the reader of
 * its JSON events. Registered in ../adapters.ts; ask the registry (adapterFor) rather than this folder.
 *
 * ```ts
 * const argv = codexArgs(parseAgentRequest({ cli: "codex" }), { workdir: "/work" }); // ["codex", "exec", "--json", ...]
 * const result = await parseCodexStream(containerStdout, { model: "gpt-5.5" });
 * ```
 */
export type { CodexArgsOptions } from "./args.js";
export type { CodexParseOptions } from "./stream.js";
export { codexAdapter } from "./adapter.js";
export { CODEX_QUIET, codexArgs } from "./args.js";
export { parseCodexStream } from "./stream.js";
