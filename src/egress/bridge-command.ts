// How the control bridge (bridge.ts) is run in the proxy's container and what it says once it holds
// the socket: one place for the runtime's two ways there (an engine's exec, a Pod's exec) and the bridge.

/** What the bridge says on stderr once it is connected; nothing is sent before it. */
export const BRIDGE_CONNECTED = "agentcage-egress-bridge: connected";

/** The bridge in the orchestrator image (dist/egress/bridge.js of this package), at the socket given. */
export const BRIDGE_SCRIPT = "/app/dist/egress/bridge.js";

/** The command that runs it. One V8 worker thread: each bridge counts against the proxy's pids limit (4 tasks, not 7). */
export function bridgeCommand(socket: string): readonly string[] {
  return ["node", "--v8-pool-size=1", BRIDGE_SCRIPT, socket];
}
