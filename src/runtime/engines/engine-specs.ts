// Several engines as an Operator writes them, one text each (`--engine`, AGENTCAGE_ENGINES):
// `ADDRESS[,name=NAME][,slots=N][,certs=DIR]`, the address as src/engine/address.ts reads it.
// The one place such a text is read; refusals name the parameter, quote the value, say what to write.

import { engineAt, parseEngineAddress, type EngineAddress } from "../../engine/index.js";
import { createEngineSet, type EngineSet } from "./engine-set.js";
import { MAX_CONCURRENT_RUNS } from "../limits.js";
import { RunRequestError } from "../misuse.js";

/** One engine's text, read: where it is, what it is called, how many Runs it takes at once. */
export type EngineSpec = { readonly address: EngineAddress; readonly name: string; readonly slots?: number };

const KEYS = ["name", "slots", "certs"];

/** Reads the `index`th engine's text; throws a RunRequestError naming `parameter` when it cannot mean anything. */
export function parseEngineSpec(value: string, parameter: string, index = 0): EngineSpec {
  const refuse = (why: string): never => {
    throw new RunRequestError(`${parameter} ${JSON.stringify(value)} ${why}`);
  };
  if (typeof value !== "string" || value.trim() === "")
    refuse("is empty; write an engine's address, such as unix:///var/run/docker.sock or tcp://10.0.0.5:2376,certs=/etc/agentcage/engine-b");
  const [address = "", ...pairs] = value.trim().split(",");
  const options = new Map<string, string>();
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    const key = at < 0 ? pair : pair.slice(0, at);
    if (at < 0 || !KEYS.includes(key))
      refuse(`has ${JSON.stringify(pair)}, which is not one of name=, slots=, certs=; write ADDRESS[,name=NAME][,slots=N][,certs=DIR]`);
    if (options.has(key)) refuse(`gives ${key}= twice; give it once`);
    options.set(key, pair.slice(at + 1));
  }
  let parsed: EngineAddress;
  try {
    parsed = parseEngineAddress(address, parameter, options.get("certs"));
  } catch (error) {
    return refuse(`cannot be read: ${(error as Error).message}`);
  }
  const slotsText = options.get("slots");
  const slots = slotsText === undefined ? undefined : Number(slotsText);
  if (slots !== undefined && (!/^\d+$/.test(slotsText ?? "") || slots < 1 || slots > MAX_CONCURRENT_RUNS)) {
    refuse(`has slots=${slotsText}; write a whole number of Runs at once on it, from 1 to ${MAX_CONCURRENT_RUNS}`);
  }
  return { address: parsed, name: options.get("name") ?? `engine-${index + 1}`, ...(slots === undefined ? {} : { slots }) };
}

/**
 * The engine set of these texts, each engine taking `defaultSlots` Runs at once unless its text says
 * (slots=). Connects to nothing yet; a tcp:// engine's certificates are read now.
 */
export function engineSetOf(values: readonly string[], parameter: string, defaultSlots?: number): EngineSet {
  const specs = values.map((value, i) => parseEngineSpec(value, parameter, i));
  return createEngineSet(
    specs.map((spec) => {
      const slots = spec.slots ?? defaultSlots;
      let engine: ReturnType<typeof engineAt>;
      try {
        engine = engineAt(spec.address);
      } catch (error) {
        throw new RunRequestError(`${parameter} engine ${JSON.stringify(spec.name)}: ${(error as Error).message}`);
      }
      return { name: spec.name, engine, ...(slots === undefined ? {} : { maxConcurrentRuns: slots }) };
    }),
    parameter,
  );
}
