// Where a Run's token is taken from: the Run's own network, as the proxy sees the agent's address
// there. Another Run's agent, on a network of its own, holds an address outside it, so a token
// that leaked from one Run is worth nothing in another.

import { BlockList, isIP } from "node:net";
import { parseSource } from "./run.js";

/** The ranges a token is taken from, as one list to check against. */
export function sourceList(sources: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of sources) {
    const source = parseSource(entry);
    if (source !== undefined) list.addSubnet(source.address, source.prefix, source.family);
  }
  return list;
}

/** The refusal of a token presented from outside its Run's network. */
export function presentedElsewhere(address: string | undefined): string {
  return `this Run's token was presented from ${address ?? "an unknown address"}, outside its Run's own network; a token works only from its own Run`;
}

/** Whether a request from `address` may use a token bound to `sources` (undefined: unbound, anywhere). */
export function fromItsRun(run: { readonly sources: BlockList | undefined }, address: string | undefined): boolean {
  if (run.sources === undefined) return true;
  if (address === undefined) return false;
  const plain = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
  return run.sources.check(plain, isIP(plain) === 6 ? "ipv6" : "ipv4");
}
