// A Docker engine reached as `ssh://` reaches one: an SSH server of the test's own (ssh2's, on
// loopback) that takes only the test's key, under one user, and answers the one command the docker
// CLI and dockerode run there, `docker system dial-stdio`, by joining the channel to an engine's
// socket, as the docker CLI on the far host would. The client's key is in an ssh-agent of the test's
// own (SSH_AUTH_SOCK), and known_hosts in a HOME of its own. No sshd is needed.

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect, type AddressInfo } from "node:net";
import { join } from "node:path";
import { type Connection, Server, utils } from "ssh2";

export const SSH_USER = "agentcage";
const DIAL_STDIO = "docker system dial-stdio";

export type SshEngine = {
  /** `ssh://agentcage@127.0.0.1:PORT`, as --engine takes it. */
  readonly address: string;
  /** An ssh-agent's socket holding the client's key: the SSH_AUTH_SOCK to run with. */
  readonly agentSocket: string;
  /** A HOME whose .ssh/known_hosts holds the server's key (and one whose file does not). */
  readonly home: string;
  readonly strangerHome: string;
  /** An ssh-agent holding a key the server does not take. */
  readonly strangerAgentSocket: string;
  /** The commands the server was asked to run, in order. */
  readonly commands: readonly string[];
  readonly close: () => Promise<void>;
};

function agentWith(dir: string, name: string): { socket: string; process: ChildProcess } {
  const socket = join(dir, `${name}.agent.sock`);
  const keyFile = join(dir, name);
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", keyFile]);
  const agent = spawn("ssh-agent", ["-D", "-a", socket], { stdio: "ignore" });
  for (let tries = 0; ; tries++) {
    try {
      execFileSync("ssh-add", ["-q", keyFile], { env: { ...process.env, SSH_AUTH_SOCK: socket }, stdio: "ignore" });
      break;
    } catch (error) {
      if (tries > 50) throw error;
      execFileSync("sleep", ["0.1"]);
    }
  }
  return { socket, process: agent };
}

/** Serves `engineSocket` (a unix socket of a Docker engine) to whoever holds the test's key. */
export async function sshEngine(root: string, engineSocket: string): Promise<SshEngine> {
  const dir = join(root, "ssh");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const client = agentWith(dir, "client");
  const stranger = agentWith(dir, "stranger");
  const allowed = utils.parseKey(readFileSync(join(dir, "client.pub"), "utf8"));
  if (allowed instanceof Error) throw allowed;
  const hostKey = utils.generateKeyPairSync("ed25519");
  const commands: string[] = [];
  const connections = new Set<Connection>();
  const server = new Server({ hostKeys: [hostKey.private] }, (connection) => {
    connections.add(connection);
    connection.on("close", () => connections.delete(connection));
    connection.on("error", () => undefined);
    connection.on("authentication", (ctx) => {
      const ours = ctx.method === "publickey" && ctx.username === SSH_USER && ctx.key.algo === allowed.type && ctx.key.data.equals(allowed.getPublicSSH());
      if (!ours) return ctx.reject(["publickey"]);
      if (ctx.method === "publickey" && ctx.signature !== undefined) {
        return allowed.verify(ctx.blob as Buffer, ctx.signature, ctx.hashAlgo) === true ? ctx.accept() : ctx.reject(["publickey"]);
      }
      ctx.accept();
    });
    connection.on("ready", () => {
      connection.on("session", (accept) => {
        const session = accept();
        session.on("exec", (acceptExec, rejectExec, info) => {
          commands.push(info.command);
          if (info.command !== DIAL_STDIO) return rejectExec();
          const channel = acceptExec();
          const engine = connect(engineSocket);
          channel.pipe(engine).pipe(channel);
          engine.on("error", () => channel.close());
          engine.on("close", () => {
            channel.exit(0);
            channel.end();
          });
          channel.on("close", () => engine.destroy());
        });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const home = join(dir, "home");
  const strangerHome = join(dir, "stranger-home");
  for (const h of [home, strangerHome]) mkdirSync(join(h, ".ssh"), { recursive: true, mode: 0o700 });
  const [type, blob] = hostKey.public.split(" ");
  writeFileSync(join(home, ".ssh", "known_hosts"), `[127.0.0.1]:${port} ${type} ${blob}\n`);
  // Another key under the same name: what a machine in the middle would show.
  const [, otherBlob] = utils.generateKeyPairSync("ed25519").public.split(" ");
  writeFileSync(join(strangerHome, ".ssh", "known_hosts"), `[127.0.0.1]:${port} ${type} ${otherBlob}\n`);
  return {
    address: `ssh://${SSH_USER}@127.0.0.1:${port}`,
    agentSocket: client.socket,
    home,
    strangerHome,
    strangerAgentSocket: stranger.socket,
    commands,
    close: async () => {
      for (const connection of connections) connection.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const agent of [client.process, stranger.process]) agent.kill();
    },
  };
}
