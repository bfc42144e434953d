// What the service refuses, through the real app over the in-memory store and scripted Runs (route
// logic: no engine): a query string is validated like a body (an unknown parameter, a bad cursor, 400
// naming it), repeated label= filters by all of them as the command's repeated --label does, and every
// refusal is one sentence of the project's own: the field or parameter, its value quoted, what to
// send; never zod's raw wording.

import { describe, expect, it } from "vitest";
import { useAppInMemory } from "../../../test/support/app.js";

const service = useAppInMemory("queries");

/** A request as the Operator, its body sent as it is, as a client could. */
const call = (path: string, init: { method?: string; body?: string } = {}) =>
  service.call(service.token, path, {
    ...(init.method === undefined ? {} : { method: init.method }),
    headers: { "content-type": "application/json" },
    ...(init.body === undefined ? {} : { payload: init.body }),
  });

async function refused(path: string, init: { method?: string; body?: string } = {}): Promise<string> {
  const answer = await call(path, init);
  const said = answer.json() as { error: string; message: string };
  expect(answer.status, said.message).toBe(400);
  expect(said.error).toBe("invalid_request");
  // zod's own words: "Unrecognized key", "Invalid input", "expected string, received number", "Too small".
  expect(said.message).not.toMatch(/Unrecognized key|Invalid input|Invalid option|expected \w+, received|Too (small|big)|^body:/);
  return said.message;
}

describe("what GET /v1/runs takes in its query string", () => {
  it("refuses an unknown parameter naming it and the one it may mean, instead of ignoring it", async () => {
    const message = await refused("/v1/runs?labels=team%3Dred");
    expect(message).toContain('query parameter "labels"');
    expect(message).toContain("label");
    expect(await refused("/v1/runs/0123456789abcdef/events?afterr=3")).toContain('query parameter "afterr"');
  });

  it("refuses a bad cursor with 400: one that is not a Run id, and one that names no Run", async () => {
    expect(await refused("/v1/runs?cursor=nonsense")).toContain('cursor "nonsense"');
    expect(await refused("/v1/runs?cursor=0123456789abcdef")).toContain('cursor "0123456789abcdef" names no Run');
  });

  it("filters by every label= given, as agentcage runs ls --label does", async () => {
    const submit = (labels: Record<string, string>) => service.submit(service.token, { prompt: "What is the capital of France?", labels });
    const both = await submit({ team: "red", suite: "queries" });
    const one = await submit({ team: "red", suite: "other" });
    await service.ended(service.token, both);
    await service.ended(service.token, one);
    const listed = (await call("/v1/runs?label=team%3Dred&label=suite%3Dqueries")).json() as { runs: Array<{ id: string }> };
    expect(listed.runs.map((run) => run.id)).toEqual([both]);
    const red = (await call("/v1/runs?label=team%3Dred")).json() as { runs: Array<{ id: string }> };
    expect(red.runs.map((run) => run.id).sort()).toEqual([both, one].sort());
    expect(await refused("/v1/runs?label=team")).toContain('label "team" is not key=value');
  });
});

describe("the service's refusals", () => {
  it("say the field, quote the value and say what to send, in the project's own words", async () => {
    const unknown = await refused("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt: "hi", temperature: 2 }) });
    expect(unknown).toContain('field "temperature"');
    expect(unknown).toMatch(/send only/);
    expect(await refused("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude" }) })).toContain("prompt is missing");
    expect(await refused("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt: 42 }) })).toContain("prompt 42 is not a string");
    expect(await refused("/v1/runs", { method: "POST", body: JSON.stringify({ cli: "claude", prompt: "" }) })).toContain('prompt "" is too short');
    expect(await refused("/v1/runs?state=done")).toContain('state "done" is not one of queued');
    expect(await refused("/v1/runs?limit=0")).toContain('limit "0" is too small');
    expect(await refused("/v1/runs/not-an-id")).toContain('the Run id "not-an-id"');
    expect(await refused("/v1/runs", { method: "POST" })).toContain("the body is missing");
  });
});
