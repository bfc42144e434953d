// A Run's own network: its address range, the network made and joined, the ranges that clash.
// Invariant: exports only, no code.
export { refusedRangeReport, reportingClashes, routesOfRange, runNetworkRangeClash, unusableRangeReport } from "./range-clash.js";
export type { RunAddresses } from "./run-addresses.js";
export { DEFAULT_RUN_NETWORK_RANGE, createRunAddresses, parseRange, runAddressesOf } from "./run-addresses.js";
export type { RunNetwork } from "./run-network.js";
export { RUN_NETWORK_KINDS, SUBNET_TRIES, closeRunNetwork, openRunNetwork, runNetworkName, tellPeer } from "./run-network.js";
