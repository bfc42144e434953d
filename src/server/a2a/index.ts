// The A2A face: the JSON-RPC endpoint, the agent card, tasks over Runs and push notifications.
// Invariant: enters the Runs only through the run service it is handed; exports only, no code.
export { registerA2A } from "./a2a.js";
