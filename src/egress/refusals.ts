// The proxy's own answers: every refusal is JSON in one shape both CLIs report as an API error
// (Anthropic reads error.type and error.message, OpenAI error.message and error.code), and CONNECT
// refusals are a status line on the raw socket. Invariant: no refusal quotes a header value.

import { STATUS_CODES, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

export type RefusalCode =
  | "missing_token"
  | "unknown_token"
  | "token_elsewhere"
  | "path_not_allowed"
  | "feature_not_allowed"
  | "not_a_proxy"
  | "budget_exceeded"
  | "request_too_large"
  | "too_many_bytes_held"
  | "too_many_requests"
  | "too_many_tunnels"
  | "budget_wait"
  | "upstream_unreachable"
  | "upstream_encoding"
  | "connect_not_allowed"
  | "connect_target_not_listed"
  | "connect_destination_refused"
  | "connect_failed"
  | "upgrade_not_allowed";

const TYPES: Readonly<Record<RefusalCode, string>> = {
  missing_token: "authentication_error",
  unknown_token: "authentication_error",
  token_elsewhere: "permission_error",
  path_not_allowed: "permission_error",
  feature_not_allowed: "permission_error",
  not_a_proxy: "permission_error",
  budget_exceeded: "budget_exceeded_error",
  request_too_large: "request_too_large",
  too_many_bytes_held: "rate_limit_error",
  too_many_requests: "rate_limit_error",
  too_many_tunnels: "rate_limit_error",
  budget_wait: "rate_limit_error",
  upstream_unreachable: "api_error",
  upstream_encoding: "api_error",
  connect_not_allowed: "permission_error",
  connect_target_not_listed: "permission_error",
  connect_destination_refused: "permission_error",
  connect_failed: "api_error",
  upgrade_not_allowed: "permission_error",
};

export function refusalBody(code: RefusalCode, message: string): string {
  return JSON.stringify({ type: "error", error: { type: TYPES[code], code, message: `agentcage egress proxy: ${message}`, param: null } });
}

/**
 * Answers a request with a refusal. `x-should-retry: false` tells the providers' SDKs not to retry
 * (a budget refusal is final); its status is chosen per CLI (providers.ts, BUDGET_REFUSAL_STATUS).
 */
export function refuse(res: ServerResponse, status: number, code: RefusalCode, message: string, headers: Readonly<Record<string, string>> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = refusalBody(code, message);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), "x-should-retry": "false", ...headers });
  res.end(body);
}

/** Answers a CONNECT (or an upgrade) on its raw socket, then closes it. */
export function refuseSocket(socket: Socket, status: number, code: RefusalCode, message: string, headers: Readonly<Record<string, string>> = {}): void {
  const body = refusalBody(code, message);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Refused"}`,
    "content-type: application/json",
    `content-length: ${Buffer.byteLength(body)}`,
    "connection: close",
  ];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
}
