// check(): whether a Run could start now, asked of the engine without starting anything: it
// answers, and it holds the declared image. Invariant: it never throws; what cannot be asked is false.

import type { Engine } from "../engine/index.js";

export type RuntimeCheck = { readonly engine: boolean; readonly image: boolean };

export async function checkEngine(engine: Engine, image: string): Promise<RuntimeCheck> {
  const engineAnswers = await engine.ping().then(
    () => true,
    () => false,
  );
  if (!engineAnswers) return { engine: false, image: false };
  return { engine: true, image: await engine.hasImage(image).catch(() => false) };
}
