// classifyApiFailure names an API failure from its HTTP status when there is one, else from its
// words; findResetTime reads when a rate limit lifts. Both are pinned whole, with a fixed `now`.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { classifyApiFailure, findResetTime } from "./classify.js";

const NOW = new Date("2026-03-01T12:00:00.000Z");

describe("classifyApiFailure", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(NOW);
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  describe("with a status", () => {
    it.each([
      [401, "Invalid API key · Fix external API key", { reason: "credential_refused", retryable: false }],
      [403, "Request not allowed", { reason: "credential_refused", retryable: false }],
      [429, "Number of requests has exceeded your rate limit", { reason: "rate_limited", retryable: true }],
      [529, "Overloaded", { reason: "overloaded", retryable: true }],
      [500, "Internal server error", { reason: "overloaded", retryable: true }],
      [503, "Service Unavailable", { reason: "overloaded", retryable: true }],
      [400, "Your credit balance is too low to access the Anthropic API.", { reason: "quota_exceeded", retryable: false }],
      [
        429,
        "You exceeded your current quota, please check your plan and billing details. (insufficient_quota)",
        { reason: "quota_exceeded", retryable: false },
      ],
      [400, "max_tokens: 64000 > 32000, which is the maximum allowed", { reason: "api_error", retryable: false }],
      [404, "model: claude-nonexistent not found", { reason: "api_error", retryable: false }],
    ] as const)("classifies %s %j", (status, message, expected) => {
      expect(classifyApiFailure(status, message)).toEqual(expected);
    });

    it("lets the status win over words that say otherwise", () => {
      expect(classifyApiFailure(401, "Your credit balance is too low")).toEqual({ reason: "credential_refused", retryable: false });
      expect(classifyApiFailure(500, "rate_limit_error")).toEqual({ reason: "overloaded", retryable: true });
      expect(classifyApiFailure(400, "overloaded_error")).toEqual({ reason: "api_error", retryable: false });
    });

    it("gives a 429 the ISO reset time its message names", () => {
      expect(classifyApiFailure(429, "rate limited until 2026-03-01T12:05:00Z")).toEqual({
        reason: "rate_limited",
        retryable: true,
        resetAt: "2026-03-01T12:05:00.000Z",
      });
    });

    it("gives a 429 a reset time relative to now", () => {
      expect(classifyApiFailure(429, "Rate limit reached. Please try again in 30 seconds.")).toEqual({
        reason: "rate_limited",
        retryable: true,
        resetAt: "2026-03-01T12:00:30.000Z",
      });
    });

    it("gives no reset time to a failure that is not a rate limit", () => {
      expect(classifyApiFailure(529, "Overloaded; try again in 30 seconds")).toEqual({ reason: "overloaded", retryable: true });
    });
  });

  describe("with only a message", () => {
    it.each([
      ["authentication_error: invalid x-api-key", { reason: "credential_refused", retryable: false }],
      ["OAuth token has expired. Please obtain a new token or refresh your existing token.", { reason: "credential_refused", retryable: false }],
      ["Invalid API key · Please run /login", { reason: "credential_refused", retryable: false }],
      ["permission_error: forbidden", { reason: "credential_refused", retryable: false }],
      ["rate_limit_error: too many tokens per minute", { reason: "rate_limited", retryable: true }],
      ["429 Too Many Requests", { reason: "rate_limited", retryable: true }],
      ['API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', { reason: "overloaded", retryable: true }],
      ["502 Bad Gateway", { reason: "overloaded", retryable: true }],
      ["Credit balance is too low", { reason: "quota_exceeded", retryable: false }],
      ["insufficient_quota", { reason: "quota_exceeded", retryable: false }],
      ['API Error: 401 {"type":"error"}', { reason: "credential_refused", retryable: false }],
      ["API Error: 403", { reason: "credential_refused", retryable: false }],
      ["API Error: 429", { reason: "rate_limited", retryable: true }],
      ["API Error: 503", { reason: "overloaded", retryable: true }],
      ["something went wrong", { reason: "api_error", retryable: false }],
    ] as const)("classifies %j", (message, expected) => {
      expect(classifyApiFailure(undefined, message)).toEqual(expected);
    });

    it("reads a relative reset time for a rate limit", () => {
      expect(classifyApiFailure(undefined, "Too many requests, retry in 2 minutes")).toEqual({
        reason: "rate_limited",
        retryable: true,
        resetAt: "2026-03-01T12:02:00.000Z",
      });
    });

    it("does not read a status out of a bare number such as a request id", () => {
      expect(classifyApiFailure(undefined, "request req_401abc failed")).toEqual({ reason: "api_error", retryable: false });
    });

    it("keeps a message-only 400 that mentions 512 an api_error", () => {
      expect(classifyApiFailure(undefined, "API Error: 400 max_tokens must be at most 512")).toEqual({ reason: "api_error", retryable: false });
    });
  });
});

describe("findResetTime", () => {
  it.each([
    ["resets at 2026-11-30T02:10:38Z", "2026-11-30T02:10:38.000Z"],
    ["resets at 2026-11-30T04:10:38+02:00", "2026-11-30T02:10:38.000Z"],
    ["resets at 2026-11-30T02:10:38.5Z", "2026-11-30T02:10:38.500Z"],
    ["resets at 2026-11-30T02:10Z", "2026-11-30T02:10:00.000Z"],
  ])("reads the ISO time in %j", (message, expected) => {
    expect(findResetTime(message, NOW)).toBe(expected);
  });

  it.each([
    ["try again in 30 seconds", "2026-03-01T12:00:30.000Z"],
    ["Please try again in 6s.", "2026-03-01T12:00:06.000Z"],
    ["try again in 2 minutes", "2026-03-01T12:02:00.000Z"],
    ["retry after 1 hour", "2026-03-01T13:00:00.000Z"],
    ["retry in 1.5h", "2026-03-01T13:30:00.000Z"],
    ["retry in 45 secs", "2026-03-01T12:00:45.000Z"],
  ])("reads %j relative to now", (message, expected) => {
    expect(findResetTime(message, NOW)).toBe(expected);
  });

  it("prefers an ISO time to a relative one", () => {
    expect(findResetTime("try again in 30 seconds, at 2026-03-01T12:00:31Z", NOW)).toBe("2026-03-01T12:00:31.000Z");
  });

  it.each(["rate limited", "resets at 2026-11-30T02:10:38", "Please try again in 20ms.", "try again in 3 months"])("finds none in %j", (message) => {
    expect(findResetTime(message, NOW)).toBeUndefined();
  });
});
