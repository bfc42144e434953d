// A Run's own network on the real engine, seen from inside the Run's container: "internal" reaches
// its one attached peer by alias and nothing else (not a service of the host's, on any of the
// host's addresses); "open" has a route out and reaches the host. Both networks go with the Run.

import { createServer, type Server } from "node:net";
import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStdout, docker, TEST_IMAGE } from "../../../test/support/engine.js";
import { createAgentContainerRuntime } from "../../index.js";
import { newRunId, runNetworkName } from "../index.js";
import type { RunNetwork } from "../../subpaths/runtime.js";

const OWNER = `agentcage-net-test-${randomBytes(3).toString("hex")}`;
const PEER = `${OWNER}-peer`;
let hostService: Server;
let hostPort = 0;

beforeAll(async () => {
  // The peer: answers "peer" to every connection on 8080, on the default bridge (its own way out).
  docker(
    "run",
    "-d",
    "--rm",
    "--name",
    PEER,
    "--label",
    `agentcage.owner=${OWNER}-peer`,
    "--user",
    "10002:10002",
    "--cap-drop",
    "ALL",
    TEST_IMAGE,
    "sh",
    "-c",
    "while true; do echo peer | nc -l -p 8080; done",
  );
  hostService = createServer((socket) => socket.end("host\n"));
  await new Promise<void>((resolve) => hostService.listen(0, "0.0.0.0", resolve));
  hostPort = (hostService.address() as { port: number }).port;
}, 60_000);

afterAll(() => {
  docker("rm", "-f", PEER);
  hostService.close();
});

/** What the Run's container says: its default route's gateway, what the peer answered, what the host's service answered. */
async function probe(network: RunNetwork): Promise<{ text: string; runId: string }> {
  const runtime = createAgentContainerRuntime({
    container: { image: TEST_IMAGE, owner: OWNER, logger: pino({ level: "silent" }) },
    run: () => ({
      args: [
        "sh",
        "-c",
        `gw=$(ip route | awk '/^default/ {print $3}'); echo "route:\${gw:-none}"; ` +
          `echo "peer:$(nc -w 2 peer 8080 </dev/null 2>/dev/null || echo unreachable)"; ` +
          `echo "host-bridge:$(nc -w 2 $(ip route | awk '/^default/ {print $3}') ${hostPort} </dev/null 2>/dev/null || echo unreachable)"; ` +
          `echo "host-docker0:$(nc -w 2 ${docker("network", "inspect", "-f", "{{(index .IPAM.Config 0).Gateway}}", "bridge")} ${hostPort} </dev/null 2>/dev/null || echo unreachable)"`,
      ],
      stdin: "",
      outcome: collectStdout,
    }),
  });
  const runId = newRunId();
  const outcome = await runtime.run({ text: "" }, { runId, network, timeoutSeconds: 60 });
  expect(outcome.ok, outcome.error).toBe(true);
  expect(docker("network", "ls", "-q", "--filter", `name=^${runNetworkName(runId)}$`)).toBe("");
  return { text: (outcome.result as { bytes: Buffer }).bytes.toString("utf8"), runId };
}

describe("a Run's own network on the real engine", () => {
  it("internal: the attached peer answers by its alias, and no address of the host does", async () => {
    const { text } = await probe({ kind: "internal", attach: { container: PEER, alias: "peer" } });
    expect(text).toContain("peer:peer");
    expect(text).toContain("host-bridge:unreachable");
    expect(text).toContain("host-docker0:unreachable");
    // The peer is only lent: it keeps running, off the Run's network.
    expect(docker("inspect", "-f", "{{.State.Running}} {{len .NetworkSettings.Networks}}", PEER)).toBe("true 1");
  }, 60_000);

  it("open: a route out, and the host's services are reachable (what docs/network.md warns of)", async () => {
    const { text } = await probe({ kind: "open" });
    expect(text).toMatch(/route:\d+\.\d+\.\d+\.\d+/);
    expect(text).toContain("peer:unreachable");
    expect(text).toContain("host-bridge:host");
  }, 60_000);

  it("40 Runs at once, each on a /28 of its own from the Run network range: past the engine's ~30 default networks", async () => {
    const RUNS = 40;
    const runtime = createAgentContainerRuntime({
      container: { image: TEST_IMAGE, owner: OWNER, logger: pino({ level: "silent" }) },
      run: () => ({
        // Each waits for the test's word (the peer opens 8081 once all 40 networks exist), so they are
        // all there at once; then says its address and what the peer answers (one client at a time, up to
        // 2 s each: 40 of them may wait a minute for their turn on a busy machine, so retried that long).
        args: [
          "sh",
          "-c",
          "until nc -w 1 peer 8081 </dev/null >/dev/null 2>&1; do sleep 0.3; done; ip -4 -o addr show eth0 | awk '{print $4}'; " +
            'tries=0; until said=$(nc -w 2 peer 8080 </dev/null 2>/dev/null) && [ -n "$said" ] || [ $tries -ge 60 ]; do tries=$((tries + 1)); sleep 0.5; done; echo "${said:-unreachable}"',
        ],
        stdin: "",
        outcome: collectStdout,
      }),
      maxConcurrentRuns: RUNS,
      runNetworkRange: "10.213.0.0/16",
    });
    const ours = () =>
      docker("network", "ls", "-q", "--filter", `label=agentcage.owner=${OWNER}`)
        .split("\n")
        .filter((id) => id !== "").length;
    const running = Promise.all(
      Array.from({ length: RUNS }, () =>
        runtime.run({ text: "" }, { network: { kind: "internal", attach: { container: PEER, alias: "peer" } }, timeoutSeconds: 180 }),
      ),
    );
    let most = 0;
    for (const started = Date.now(); most < RUNS && Date.now() - started < 150_000; await new Promise((resolve) => setTimeout(resolve, 500)))
      most = Math.max(most, ours());
    // The word: 8081 answers from now on, one client at a time, as long as the peer runs.
    docker("exec", "-d", PEER, "sh", "-c", "while true; do nc -l -p 8081 </dev/null >/dev/null 2>&1; done");
    const outcomes = await running;
    expect(most).toBe(RUNS);
    expect(outcomes.filter((outcome) => !outcome.ok).map((outcome) => outcome.error)).toEqual([]);
    const said = outcomes.map((outcome) => (outcome.result as { bytes: Buffer }).bytes.toString("utf8").trim().split("\n"));
    // Each agent's address is in a /28 of the range, no two in the same one, and the peer answered each.
    const subnets = said.map(([address = ""]) => {
      const [a, b, c, d] = address.split("/")[0]?.split(".").map(Number) ?? [];
      expect(`${a}.${b}`, address).toBe("10.213");
      return `${c}.${Math.floor((d ?? 0) / 16)}`;
    });
    expect(new Set(subnets).size).toBe(RUNS);
    expect(said.map(([, answer]) => answer)).toEqual(Array.from({ length: RUNS }, () => "peer"));
    expect(ours()).toBe(0);
    expect(docker("inspect", "-f", "{{len .NetworkSettings.Networks}}", PEER)).toBe("1");
  }, 300_000);
});
