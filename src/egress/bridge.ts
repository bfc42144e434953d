// The control bridge: run by the runtime as an exec in the proxy's container, it joins the exec's
// stdin and stdout to the control socket there, so the control channel goes through the engine and
// the socket is published nowhere. Nothing but node:net (and its own constants), so it starts fast; it reads no byte it passes.
// Protocol on stderr: one line BRIDGE_CONNECTED once the socket is connected (the runtime waits for
// it before it sends), or one line saying why not and exit 1. Usage: node bridge.js <socket>

import { connect } from "node:net";
import { BRIDGE_CONNECTED } from "./bridge-command.js";

const socketPath = process.argv[2];
if (socketPath === undefined || socketPath === "") {
  process.stderr.write("agentcage-egress-bridge: no control socket was named; run it as: node bridge.js <socket>\n");
  process.exit(2);
}
const socket = connect(socketPath);
socket.once("connect", () => {
  process.stderr.write(`${BRIDGE_CONNECTED}\n`);
  process.stdin.pipe(socket);
  socket.pipe(process.stdout);
});
socket.once("error", (error: NodeJS.ErrnoException) => {
  process.stderr.write(`agentcage-egress-bridge: the control socket ${JSON.stringify(socketPath)} cannot be reached (${error.code ?? error.message})\n`);
  process.exit(1);
});
// The endpoint closed the connection (its answer is whole): nothing more to pass, whatever stdin does.
socket.once("close", () => process.stdout.write("", () => process.exit(0)));
