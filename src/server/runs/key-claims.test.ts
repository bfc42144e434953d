// The claim of an idempotency key, the step a store takes atomically: of claims racing for one key
// one wins, the others learn who holds it and when it settles, and a claim let go frees the key.

import { describe, expect, it } from "vitest";
import { createKeyClaims } from "./key-claims.js";

describe("the claims of idempotency keys", () => {
  it("give a key to exactly one of the claims racing for it; the others wait on it, then learn the Run it made", async () => {
    const keys = createKeyClaims();
    const answers = await Promise.all(["r1", "r2", "r3"].map((id) => keys.claim("a", "k", id)));
    expect(answers.filter((answer) => answer === undefined)).toHaveLength(1);
    const winner = ["r1", "r2", "r3"][answers.indexOf(undefined)] ?? "";
    const waiting = answers.filter((answer) => answer !== undefined);
    expect(waiting).toEqual([{ making: expect.any(Promise) }, { making: expect.any(Promise) }]);
    await keys.made("a", "k", winner);
    for (const holder of waiting) if (holder !== undefined && "making" in holder) await holder.making;
    expect(await keys.claim("a", "k", "r4")).toEqual({ made: winner });
  });

  it("free a key whose claim made no Run, waking those waiting on it; another's release of it changes nothing", async () => {
    const keys = createKeyClaims();
    expect(await keys.claim("a", "k", "r1")).toBeUndefined();
    const holder = await keys.claim("a", "k", "r2");
    await keys.release("a", "k", "r2");
    expect(await keys.claim("a", "k", "r3")).toEqual({ making: expect.any(Promise) });
    await keys.release("a", "k", "r1");
    if (holder !== undefined && "making" in holder) await holder.making;
    expect(await keys.claim("a", "k", "r2")).toBeUndefined();
  });

  it("keep each tenant's keys its own", async () => {
    const keys = createKeyClaims();
    await keys.made("a", "k", "r1");
    expect(await keys.claim("b", "k", "r2")).toBeUndefined();
    expect(await keys.claim("a", "k", "r3")).toEqual({ made: "r1" });
  });
});
