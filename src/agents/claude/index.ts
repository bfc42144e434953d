/**
 * The claude adapter: Anthropic's claude CLI, its argv, its stdin and the reader of its stream-json.
 * Registered in ../adapters.ts; ask the registry (adapterFor) rather than this folder.
 *
 * ```ts
 * const argv = claudeArgs(parseAgentRequest({ cli: "claude", model: "sonnet" })); // ["claude", "--print", ...]
 * const result = await parseClaudeStream(containerStdout);
 * ```
 */
export type { ClaudeArgsOptions } from "./args.js";
export { claudeAdapter } from "./adapter.js";
export { claudeArgs } from "./args.js";
export { CLAUDE_QUIET } from "./environment.js";
export { parseClaudeStream } from "./stream.js";
