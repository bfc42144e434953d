// Bounds of the doctor's probes, in one place: each question to the engine and each preflight
// container is bounded, so a hung engine or image makes a failed check, never a hung doctor.

const KiB = 1024;
/** How long one question about the engine itself (its facts, an image, a container's mounts) may take on an idle machine (stretched by the load: a doctor run on a busy host says the bound as it was hit). */
export const ENGINE_QUESTION_TIMEOUT_MS = 10_000;
/** How long the Staging Directory probe's container, and each agent CLI's `--version`, may run. */
export const PREFLIGHT_TIMEOUT_SECONDS = 60;
/** What a preflight container may print before it is cut off (a nonce, a version line). */
export const PREFLIGHT_OUTPUT_BYTES = 4 * KiB;
