// `agentcage serve` as a process of its own (the built command, dist/cli/main.js), as a user starts
// it: on a free loopback port, with the stand-in model, answering its URL once it logs that it listens.

import { spawn, type ChildProcess } from "node:child_process";
import { MAIN } from "./command.js";

export type ServeProcess = {
  readonly url: string;
  readonly child: ChildProcess;
  /** Resolves with its exit code once it has exited. */
  readonly exited: Promise<number | null>;
};

export type ServeProcessOptions = {
  readonly runtimeDir: string;
  /** Its AGENTCAGE_TOKEN. */
  readonly token: string;
  /** More of serve's flags, after `--port 0 --runtime-dir DIR --stand-in`. */
  readonly args?: readonly string[];
  /** Default true; false leaves --stand-in out (serve --kubernetes refuses it). */
  readonly standIn?: boolean;
  /** Over this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
};

/** Starts it; rejects with the end of its stderr when it exits before it listens. */
export function startServeProcess(options: ServeProcessOptions): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [MAIN, "serve", "--port", "0", "--runtime-dir", options.runtimeDir, ...(options.standIn === false ? [] : ["--stand-in"]), ...(options.args ?? [])],
    {
      env: { ...process.env, AGENTCAGE_TOKEN: options.token, ...options.env },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    let text = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const url = /listening on (http:\/\/[^\s;]+)/.exec(text)?.[1];
      if (url !== undefined) resolve({ url, child, exited });
    });
    void exited.then((code) => reject(new Error(`agentcage serve exited with ${code}: ${text.slice(-2000)}`)));
  });
}
