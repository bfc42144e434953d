// The runtime's side of the control endpoint: the same EgressControl the in-process proxy is, spoken
// over a unix socket, HTTP, or a connection the caller makes (an exec into the proxy's container),
// with the control secret. Breaches arrive on one event stream, opened while anyone listens and
// reopened after a drop.
// Invariant: a refusal from the endpoint keeps its meaning (a bad registration is an
// EgressArgumentError with the endpoint's message); the secret appears in no error.

import { Agent, request, type IncomingMessage, type RequestOptions } from "node:http";
import { connect as connectSocket, type Socket } from "node:net";
import { Duplex } from "node:stream";
import { createParser } from "eventsource-parser";
import { AgentcageError } from "../errors/index.js";
import { describeBound, patientTimer } from "../liveness/index.js";
import { CALLER_CONNECTION_IDLE_MS, CONTROL_REQUEST_TIMEOUT_MS, EVENTS_RECONNECT_MAX_MS, MAX_CALLER_CONNECTIONS, MIN_CONTROL_SECRET_LENGTH } from "./limits.js";
import type { EgressControl } from "./proxy.js";
import { EgressArgumentError, type EgressBreach, type RunMeter, type RunRegistration } from "./run.js";

export type EgressControlClientOptions = {
  /** The endpoint's unix socket; or */
  readonly socketPath?: string;
  /** its "http://host:port"; or */
  readonly url?: string;
  /**
   * connections to it made by the caller (a bridge over the engine, which costs a program's start
   * each): kept open between requests, at most MAX_CALLER_CONNECTIONS at once, closed after
   * CALLER_CONNECTION_IDLE_MS unused. A rejection is the request's error.
   */
  readonly connect?: () => Promise<Duplex>;
  /** How messages name the endpoint; default its socketPath or url, or "a connection of the caller's". */
  readonly where?: string;
  readonly secret: string;
  /** How long one request may go unanswered on an idle machine before it fails, stretched by the load; default CONTROL_REQUEST_TIMEOUT_MS. Not the event stream. */
  readonly requestTimeoutMs?: number;
  /** Milliseconds before the event stream is reopened after a drop, doubled for each failed reopening up to EVENTS_RECONNECT_MAX_MS. Default 1000. */
  readonly reconnectMs?: number;
};

export type EgressControlClient = EgressControl & {
  /** Resolves once the breach event stream is open (after the first onBreach), so no breach after it is missed. */
  readonly eventsOpen: () => Promise<void>;
  /**
   * Whether the endpoint refuses connections now (nothing listens on its socket or port): why, said
   * after "it", or undefined when a connection opens or it cannot be told (a caller's connection).
   * A slow endpoint still accepts: only a refusal shows it gone.
   */
  readonly refusal: () => Promise<string | undefined>;
  /** Closes the event stream; later calls still work. */
  readonly close: () => void;
};

export class EgressControlError extends AgentcageError {
  override readonly name = "EgressControlError";
  readonly code = "egress_control_failed";
}

export function createEgressControlClient(options: EgressControlClientOptions): EgressControlClient {
  if ([options.socketPath, options.url, options.connect].filter((one) => one !== undefined).length !== 1) {
    throw new EgressArgumentError(
      `socketPath ${JSON.stringify(options.socketPath)}, url ${JSON.stringify(options.url)} and connect (${options.connect === undefined ? "not given" : "given"}): pass exactly one, where the proxy's control endpoint listens or how to reach it`,
    );
  }
  if (typeof options.secret !== "string" || options.secret.length < MIN_CONTROL_SECRET_LENGTH) {
    throw new EgressArgumentError(`secret is shorter than ${MIN_CONTROL_SECRET_LENGTH} characters; pass the control secret the proxy was started with`);
  }
  const base = options.url === undefined ? undefined : new URL(options.url);
  const where = options.where ?? options.socketPath ?? options.url ?? "a connection of the caller's";
  const agent = options.connect === undefined ? undefined : callerAgent(options.connect);
  const target = (method: string, path: string): RequestOptions => ({
    method,
    path,
    headers: { authorization: `Bearer ${options.secret}`, "content-type": "application/json" },
    ...(agent !== undefined
      ? { agent }
      : options.socketPath !== undefined
        ? { socketPath: options.socketPath }
        : { host: base?.hostname.replace(/^\[|\]$/g, "") ?? "", port: Number(base?.port || 80) }),
  });

  const call = (method: string, path: string, body?: unknown, again = false): Promise<{ status: number; json: unknown }> =>
    new Promise((resolve, reject) => {
      const req = request(target(method, path), (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          let json: unknown;
          try {
            json = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
        res.on("error", reject);
      });
      req.on("error", (error: NodeJS.ErrnoException) => {
        // A kept-alive connection found closed as it was reused (its bridge went with the proxy's
        // container): the request never got there, so it is sent once more on a new one.
        if (!again && req.reusedSocket && error.code === "ECONNRESET") call(method, path, body, true).then(resolve, reject);
        else reject(new EgressControlError(`the egress proxy's control endpoint at ${where} could not be reached: ${error.message}`));
      });
      // An answer that never comes (a proxy hung, a bridge stuck) is a failure, not a wait without end;
      // one that is only slow on a busy machine is waited for as long as the load stretches the bound.
      const bound = patientTimer(options.requestTimeoutMs ?? CONTROL_REQUEST_TIMEOUT_MS, (hit) =>
        req.destroy(
          new Error(
            `no answer to ${method} ${path.replace(/\/v1\/runs\/[^/]+/, "/v1/runs/ID")} within ${describeBound(hit)} (${options.requestTimeoutMs === undefined ? "CONTROL_REQUEST_TIMEOUT_MS" : "requestTimeoutMs"})`,
          ),
        ),
      );
      req.on("close", bound.cancel);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });

  const failure = (what: string, status: number, json: unknown): Error => {
    const message = (json as { error?: { message?: unknown } } | undefined)?.error?.message;
    return new EgressControlError(
      `the egress proxy's control endpoint refused to ${what} (HTTP ${status})${typeof message === "string" ? `: ${message}` : ""}`,
    );
  };

  const readMeter = async (method: string, runId: string, suffix: string, what: string): Promise<RunMeter | undefined> => {
    const { status, json } = await call(method, `/v1/runs/${encodeURIComponent(runId)}${suffix}`);
    if (status === 404) return undefined;
    if (status !== 200) throw failure(`${what} ${JSON.stringify(runId)}`, status, json);
    return json as RunMeter;
  };

  const listeners = new Set<(breach: EgressBreach) => void>();
  let stream: IncomingMessage | undefined;
  let opening = false;
  let closed = false;
  let markOpen: () => void = () => undefined;
  let opened = new Promise<void>((resolve) => (markOpen = resolve));
  // Failures in a row since the stream was last open: each doubles the wait, so a proxy that is gone
  // is not asked every second (each ask an exec of a bridge, through an engine or a cluster's API).
  let failures = 0;
  const open = (): void => {
    if (closed || opening || stream !== undefined || listeners.size === 0) return;
    opening = true;
    const retry = (): void => {
      opening = false;
      stream = undefined;
      const base = options.reconnectMs ?? 1000;
      setTimeout(open, Math.min(base * 2 ** failures, Math.max(base, EVENTS_RECONNECT_MAX_MS))).unref();
      failures += 1;
    };
    const req = request(target("GET", "/v1/events"), (res) => {
      opening = false;
      if (res.statusCode !== 200) {
        res.resume();
        retry();
        return;
      }
      stream = res;
      failures = 0;
      markOpen();
      const decoder = new TextDecoder();
      const parser = createParser({
        onEvent: (event) => {
          if (event.event !== "breach") return;
          const breach = JSON.parse(event.data) as EgressBreach;
          for (const listener of listeners) listener(breach);
        },
      });
      res.on("data", (chunk: Buffer) => parser.feed(decoder.decode(chunk, { stream: true })));
      res.on("close", retry);
      res.on("error", () => undefined);
    });
    req.on("error", retry);
    req.end();
  };
  const shut = (): void => {
    if (stream !== undefined) opened = new Promise<void>((resolve) => (markOpen = resolve));
    stream?.destroy();
    stream = undefined;
  };

  return {
    register: async (registration: RunRegistration) => {
      const { status, json } = await call("POST", "/v1/runs", registration);
      if (status === 400) {
        const message = (json as { error?: { message?: unknown } } | undefined)?.error?.message;
        throw new EgressArgumentError(typeof message === "string" ? message : "the registration was refused");
      }
      if (status !== 201) throw failure(`register Run ${JSON.stringify(registration.runId)}`, status, json);
      return { token: (json as { token: string }).token };
    },
    revoke: (runId) => readMeter("DELETE", runId, "", "revoke Run"),
    bind: async (runId, sources) => {
      const { status, json } = await call("PUT", `/v1/runs/${encodeURIComponent(runId)}/sources`, { sources });
      const code = (json as { error?: { code?: unknown } } | undefined)?.error?.code;
      if (status === 404 && code === "unknown_run") return false;
      if (status === 404)
        throw new EgressControlError(
          "the egress proxy has no route to bind a Run's token to its network: it runs an older image than this orchestrator; rebuild its image and restart it",
        );
      if (status !== 200) throw failure(`bind Run ${JSON.stringify(runId)} to its network`, status, json);
      return true;
    },
    meter: (runId) => readMeter("GET", runId, "/meter", "read the meter of Run"),
    onBreach: (listener) => {
      listeners.add(listener);
      open();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) shut();
      };
    },
    eventsOpen: () => opened,
    refusal: () =>
      agent !== undefined
        ? Promise.resolve(undefined)
        : refusedAt(
            options.socketPath === undefined
              ? { host: base?.hostname.replace(/^\[|\]$/g, "") ?? "", port: Number(base?.port || 80) }
              : { path: options.socketPath },
          ),
    close: () => {
      closed = true;
      shut();
      // The idle connections go now (a bridge each); a later call makes a new one.
      agent?.destroy();
    },
  };
}

/** Codes with which a connection is refused because nothing listens there (or no socket is there at all). */
const REFUSED = new Set(["ECONNREFUSED", "ENOENT"]);

/** Opens and closes one connection: why it was refused (said after "it"), or undefined when it opened or could not be told in time. */
function refusedAt(where: { readonly path: string } | { readonly host: string; readonly port: number }): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connectSocket(where as { path: string });
    // A connection that neither opens nor is refused is a slow endpoint, not a gone one.
    const bound = patientTimer(CONTROL_REQUEST_TIMEOUT_MS, () => settle(undefined));
    function settle(why: string | undefined): void {
      bound.cancel();
      socket.destroy();
      resolve(why);
    }
    socket.once("connect", () => settle(undefined));
    socket.once("error", (error: NodeJS.ErrnoException) =>
      settle(error.code !== undefined && REFUSED.has(error.code) ? `refuses connections on its control endpoint (${error.code})` : undefined),
    );
  });
}

/**
 * Node http's agent over the caller's connect: keep-alive, bounded, its idle connections closed
 * before the endpoint's own keep-alive timeout (Node's 5 s) can close one under a request.
 */
function callerAgent(connect: () => Promise<Duplex>): Agent {
  const agent = new Agent({ keepAlive: true, maxSockets: MAX_CALLER_CONNECTIONS, timeout: CALLER_CONNECTION_IDLE_MS });
  // At once, not when connect() settles: the agent counts a connection toward maxSockets from here.
  agent.createConnection = () => socketLike(connectionFrom(connect));
  return agent;
}

/**
 * A stream that is the caller's connection once connect() makes it: what is written before waits,
 * and a failed connect is this stream's error (the request's).
 */
function connectionFrom(connect: () => Promise<Duplex>): Duplex {
  let real: Duplex | undefined;
  const waiting: Array<() => void> = [];
  const stream = new Duplex({
    read: () => {
      real?.resume();
    },
    write: (chunk: Buffer, _encoding, done) => {
      if (real !== undefined) real.write(chunk, done);
      else waiting.push(() => real?.write(chunk, done));
    },
    final: (done) => {
      if (real !== undefined) real.end(done);
      else waiting.push(() => real?.end(done));
    },
    destroy: (error, done) => {
      real?.destroy();
      done(error);
    },
  });
  connect().then(
    (made) => {
      if (stream.destroyed) {
        made.destroy();
        return;
      }
      real = made;
      made.on("data", (chunk: Buffer) => {
        if (!stream.push(chunk)) made.pause();
      });
      made.once("end", () => stream.push(null));
      made.once("error", (error) => stream.destroy(error));
      made.once("close", () => stream.destroy());
      for (const next of waiting.splice(0)) next();
    },
    (error: unknown) => stream.destroy(error instanceof Error ? error : new Error(String(error))),
  );
  return stream;
}

/**
 * The caller's stream with what http's agent asks of a socket beyond a Duplex: setTimeout (an idle
 * timer: the agent closes a free connection when it fires), and ref, unref, setKeepAlive and
 * setNoDelay, which mean nothing for a stream that is not a TCP socket of this process's.
 */
function socketLike(stream: Duplex): Socket {
  let timer: NodeJS.Timeout | undefined;
  const shims = {
    setTimeout: (ms: number, onTimeout?: () => void) => {
      clearTimeout(timer);
      // As net.Socket's: a callback is a once-listener, and a bound of 0 takes its callback off again
      // (http does so after each request on a kept-alive connection; listeners would pile up otherwise).
      if (onTimeout !== undefined) {
        if (ms > 0) stream.once("timeout", onTimeout);
        else stream.off("timeout", onTimeout);
      }
      if (ms > 0) timer = setTimeout(() => stream.emit("timeout"), ms).unref();
      return stream;
    },
    ref: () => stream,
    unref: () => stream,
    setKeepAlive: () => stream,
    setNoDelay: () => stream,
  };
  stream.once("close", () => clearTimeout(timer));
  return Object.assign(stream, shims) as unknown as Socket;
}
