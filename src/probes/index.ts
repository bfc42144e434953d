/**
 * The doctor's probes: what an engine, an image and a Staging Directory are really like, asked of
 * the engine itself (never guessed from this host), each answering a report instead of throwing.
 *
 * ```ts
 * const engine = await inspectEngine();
 * if (engine.ok) console.log(engine.facts.serverVersion);
 * const staging = await probeStagingDirectory({ image: AGENT_IMAGE, runtimeDir: "/srv/agentcage" });
 * if (!staging.ok) console.error(staging.failure, staging.error);
 * ```
 */
export type { EngineConnection, EngineFailure, EngineReport, ImageReport, MountsReport } from "./engine-facts.js";
export type { StagingProbe, StagingProbeFailure, StagingProbeOptions } from "./staging-probe.js";
export { containerMounts, inspectEngine, inspectImage } from "./engine-facts.js";
export { PREFLIGHT_OWNER, probeStagingDirectory } from "./staging-probe.js";
export { PREFLIGHT_OUTPUT_BYTES, PREFLIGHT_TIMEOUT_SECONDS } from "./limits.js";
