// Holds the whole source tree to the confinement rules, and proves each rule still fires on a
// probe that breaks it. Invariant: the real tree must yield no violations; a rule that stops
// firing on its probe is as broken as a tree that breaks it.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { findCircles, findViolations, reachedFrom } from "./index.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

function sourceTree(): { path: string; text: string }[] {
  return readdirSync(join(repoRoot, "src"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => `src/${name.split("\\").join("/")}`)
    .sort()
    .map((path) => ({ path, text: readFileSync(join(repoRoot, path), "utf8") }));
}

function violationsOf(path: string, text: string): string[] {
  return findViolations([{ path, text }]);
}

describe("the source tree", () => {
  it("breaks none of the confinement rules", () => {
    const violations = findViolations(sourceTree());
    expect(violations).toEqual([]);
  });

  it("keeps the MCP server beneath the service and the command: src/mcp reaches Runs only through the desk it is given", () => {
    const messages = findViolations([{ path: "src/mcp/tools.ts", text: `import { runsFor } from "../server/index.js";` }]);
    expect(messages).toEqual([expect.stringMatching(/layers: mcp \(rank 7\) may import only lower ranks, not server \(rank 8\)/)]);
  });

  it("has no import circle, type-only imports included", () => {
    expect(findCircles(sourceTree())).toEqual([]);
  });

  it("loads neither the service nor fastify, the A2A or MCP SDK or dockerode for agentcage run --remote", () => {
    const { files, packages } = reachedFrom(sourceTree(), ["src/cli/main.ts", "src/cli/run-remote.ts"]);
    expect(files).toContain("src/staging/archive-extract.ts");
    expect(files.filter((file) => file.startsWith("src/server/"))).toEqual([]);
    expect(packages.filter((name) => /fastify|a2a-js|modelcontextprotocol|dockerode/.test(name))).toEqual([]);
  });

  it("loads, for agentcage/client, only its own files, the errors, openapi-fetch and eventsource-parser: never the service, the runtime or the engine", () => {
    const { files, packages } = reachedFrom(sourceTree(), ["src/client/index.ts"]);
    expect(files).toContain("src/client/follow.ts");
    expect(files.filter((file) => !file.startsWith("src/client/") && !file.startsWith("src/errors/"))).toEqual([]);
    expect(packages).toEqual(["eventsource-parser", "openapi-fetch"]);
  });
  it("loads, for the egress proxy's program, no agent adapter: it knows model providers (src/egress/providers/), never CLIs", () => {
    const { files } = reachedFrom(sourceTree(), ["src/egress/main.ts"]);
    expect(files).toContain("src/egress/providers/anthropic.ts");
    expect(files.filter((file) => file.startsWith("src/agents/"))).toEqual([]);
  });
  it("loads, for the Kubernetes backend, neither dockerode nor the Docker engine's folder", () => {
    const { files, packages } = reachedFrom(sourceTree(), ["src/kube/index.ts"]);
    expect(files).toContain("src/kube/render-pod.ts");
    expect(files.filter((file) => file.startsWith("src/engine/"))).toEqual([]);
    expect(packages.filter((name) => name === "dockerode")).toEqual([]);
    expect(violationsOf("src/kube/probe.ts", `import Docker from "dockerode";`)).toEqual([expect.stringMatching(/dockerode values only in the engine/)]);
    // client-node takes about a second to load: only createKubeApi loads it, when called.
    expect(packages).not.toContain("@kubernetes/client-node");
  });

  it("loads neither client-node nor Kubernetes' schemas when the command starts: plan --kubernetes loads them when asked", () => {
    const { files, packages } = reachedFrom(sourceTree(), ["src/cli/main.ts"]);
    expect(files.filter((file) => file.startsWith("src/kube/"))).toEqual([]);
    expect(packages.filter((name) => name.startsWith("@kubernetes/") || name === "kubernetes-models")).toEqual([]);
  });
});

describe("what an entry loads", () => {
  it("follows static value imports into files and packages, and leaves types and dynamic imports out", () => {
    const reached = reachedFrom(
      [
        { path: "src/cli/main.ts", text: `import { a } from "./a.js";\nimport type { T } from "../server/index.js";\nconst lazy = () => import("./lazy.js");` },
        { path: "src/cli/a.ts", text: `import fastify from "fastify";\nimport { b } from "../server/index.js";\nimport { x } from "@fastify/multipart/sub";` },
        { path: "src/server/index.ts", text: `import { readFile } from "node:fs/promises";` },
        { path: "src/cli/lazy.ts", text: `import Docker from "dockerode";` },
      ],
      ["src/cli/main.ts"],
    );
    expect(reached).toEqual({ files: ["src/cli/a.ts", "src/cli/main.ts", "src/server/index.ts"], packages: ["@fastify/multipart", "fastify"] });
  });
});

describe("the circle check", () => {
  it("finds two files that import each other, a longer circle, and a file importing itself", () => {
    const circles = findCircles([
      { path: "src/egress/proxy.ts", text: `import { tunnel } from "./tunnel.js";` },
      { path: "src/egress/tunnel.ts", text: `import type { LiveRun } from "./proxy.js";` },
      { path: "src/runtime/a.ts", text: `import { b } from "./b.js";` },
      { path: "src/runtime/b.ts", text: `export { c } from "./c.js";` },
      { path: "src/runtime/c.ts", text: `const a = await import("./a.js");` },
      { path: "src/plan/self.ts", text: `import { me } from "./self.js";` },
    ]);
    expect(circles).toEqual([
      ["src/egress/proxy.ts", "src/egress/tunnel.ts"],
      ["src/plan/self.ts"],
      ["src/runtime/a.ts", "src/runtime/b.ts", "src/runtime/c.ts"],
    ]);
  });

  it("leaves tests out, and an import of a file not in the tree", () => {
    const circles = findCircles([
      { path: "src/runtime/run.ts", text: `import { x } from "./gone.js";` },
      { path: "src/runtime/run.test.ts", text: `import { run } from "./run.js";` },
      { path: "src/runtime/helper.ts", text: `import { t } from "./run.test.js";` },
    ]);
    expect(circles).toEqual([]);
  });
});

describe("the confinement rules", () => {
  it("refuse reaching past another directory's front door", () => {
    const [message] = violationsOf("src/runtime/run.ts", `import { x } from "../staging/prepare.js";`);
    expect(message).toMatch(/^src\/runtime\/run\.ts imports "\.\.\/staging\/prepare\.js": front doors/);
  });

  it("refuse a subfolder reaching into its parent directory except through its index", () => {
    const messages = violationsOf("src/staging/harvest/harvest.ts", `import { LIMIT } from "../limits.js";`);
    expect(messages).toEqual([expect.stringMatching(/^src\/staging\/harvest\/harvest\.ts .*front doors/)]);
  });

  it("refuse, from outside a room, any door but the room's own: never a sub-folder's", () => {
    expect(violationsOf("src/cli/serve.ts", `import { createRunService } from "../server/runs/index.js";`)).toEqual([
      expect.stringMatching(
        /^src\/cli\/serve\.ts .*rooms: src\/server\/ is entered from outside only through src\/server\/index\.js, never src\/server\/runs\//,
      ),
    ]);
    expect(violationsOf("src/cli/serve.ts", `import { serve } from "../server/index.js";`)).toEqual([]);
  });

  it("refuse a room's sub-folders reaching into each other, or its root reaching into one, except through the door", () => {
    expect(violationsOf("src/server/http/routes.ts", `import type { RunStore } from "../runs/store.js";`)).toEqual([
      expect.stringMatching(/^src\/server\/http\/routes\.ts .*front doors: another directory is reached only through src\/server\/runs\/index\.js/),
    ]);
    expect(violationsOf("src/server/limits.ts", `import { x } from "./runs/store.js";`)).toEqual([expect.stringMatching(/front doors/)]);
    expect(violationsOf("src/server/http/routes.ts", `import type { RunStore } from "../runs/index.js";`)).toEqual([]);
  });

  it("let a room's sub-folder import a shared leaf at the room's root, and nothing there that reaches into a sub-folder", () => {
    const files = [
      { path: "src/server/caller.ts", text: `import { AgentcageError } from "../errors/index.js";\nimport { LIMIT } from "./limits.js";` },
      { path: "src/server/limits.ts", text: `export const LIMIT = 1;` },
      { path: "src/server/front.ts", text: `import { store } from "./runs/index.js";` },
      { path: "src/server/http/routes.ts", text: `import { caller } from "../caller.js";\nimport { front } from "../front.js";` },
      { path: "src/server/runs/deep/far.ts", text: `import { LIMIT } from "../../limits.js";` },
    ];
    expect(findViolations(files)).toEqual([
      expect.stringMatching(/^src\/server\/http\/routes\.ts imports "\.\.\/front\.js": front doors/),
      expect.stringMatching(/^src\/server\/runs\/deep\/far\.ts imports "\.\.\/\.\.\/limits\.js": front doors/),
    ]);
  });

  it("find imports written across several lines, re-exports and dynamic imports", () => {
    const text = `import {\n  a,\n  b,\n} from "../plan/run-plan.js";\nexport * from "../mounts/mount.js";\nexport type { T } from "../plan/outcome.js";\nconst m = await import("../redact/masker.js");\nimport "../plan/limits.js";`;
    const messages = violationsOf("src/runtime/run.ts", text);
    for (const specifier of ["run-plan", "mount", "outcome", "masker", "limits"]) {
      expect(messages).toContainEqual(expect.stringMatching(new RegExp(`^src/runtime/run\\.ts imports "[^"]*${specifier}\\.js": front doors`)));
    }
  });

  it("refuse a lower layer importing a higher one", () => {
    const messages = violationsOf("src/engine/engine.ts", `import { run } from "../runtime/index.js";`);
    expect(messages).toEqual([expect.stringMatching(/^src\/engine\/engine\.ts .*layers: engine \(rank 2\).*runtime \(rank 3\)/)]);
  });

  it("refuse two folders of the same rank importing each other", () => {
    const messages = violationsOf("src/plan/run-plan.ts", `import type { Mount } from "../mounts/index.js";`);
    expect(messages).toEqual([expect.stringMatching(/^src\/plan\/run-plan\.ts .*layers/)]);
  });

  it("refuse the errors leaf importing any other folder", () => {
    const messages = violationsOf("src/errors/codes.ts", `import type { Mount } from "../mounts/index.js";`);
    expect(messages).toEqual([expect.stringMatching(/^src\/errors\/codes\.ts .*layers: errors \(rank -1\).*mounts \(rank 0\)/)]);
  });

  it("refuse an import into a folder missing from the ranks", () => {
    const messages = violationsOf("src/runtime/run.ts", `import { x } from "../gadgets/index.js";`);
    expect(messages).toEqual([expect.stringMatching(/^src\/runtime\/run\.ts .*unknown folder src\/gadgets\/; add it to the ranks/)]);
  });

  it("refuse the agent adapters reaching up into the runtime that runs them", () => {
    const messages = violationsOf("src/agents/claude.ts", `import type { RunOptions } from "../runtime/index.js";`);
    expect(messages).toEqual([expect.stringMatching(/^src\/agents\/claude\.ts .*layers: agents \(rank 1\) may import only lower ranks, not runtime/)]);
  });

  it("refuse the service and the command importing the engine", () => {
    for (const importer of ["src/server/serve.ts", "src/cli/doctor.ts", "src/cli/doctor.test.ts"]) {
      expect(violationsOf(importer, `import { createDockerEngine } from "../engine/index.js";`)).toEqual([
        expect.stringMatching(/the service and the command call the library, never the engine/),
      ]);
    }
  });

  it("refuse dockerode values outside the engine, in every import form", () => {
    for (const text of [
      `import Docker from "dockerode";`,
      `import { Container } from "dockerode";`,
      `import * as docker from "dockerode";`,
      `import Docker, { type Container } from "dockerode";`,
    ]) {
      expect(violationsOf("src/runtime/runtime.ts", text), text).toEqual([
        expect.stringMatching(/^src\/runtime\/runtime\.ts imports "dockerode": dockerode values only in the engine/),
      ]);
    }
  });

  it("refuse a test importing a package-root file other than src/index.ts", () => {
    const messages = violationsOf("src/runtime/run.test.ts", `import { x } from "../helpers.js";`);
    expect(messages).toEqual([expect.stringMatching(/^src\/runtime\/run\.test\.ts .*package root/)]);
  });

  it("refuse a test breaking the other rules just like source does", () => {
    const messages = violationsOf("src/agents/claude.test.ts", `import { x } from "../staging/index.js";`);
    expect(messages).toEqual([expect.stringMatching(/^src\/agents\/claude\.test\.ts .*layers: agents \(rank 1\) may import only lower ranks, not staging/)]);
  });

  it("refuse source reaching outside src/ or into the package root", () => {
    expect(violationsOf("src/runtime/run.ts", `import { fake } from "../../test/support/fake.js";`)).toEqual([
      expect.stringMatching(/^src\/runtime\/run\.ts .*only tests may reach outside src\//),
    ]);
    expect(violationsOf("src/runtime/run.ts", `import { run } from "../index.js";`)).toEqual([
      expect.stringMatching(/^src\/runtime\/run\.ts .*only tests may import the package root/),
    ]);
    expect(violationsOf("src/cli/doctor.ts", `import type { EngineFacts } from "../subpaths/runtime.js";`)).toEqual([
      expect.stringMatching(/^src\/cli\/doctor\.ts .*only tests may import the package's entry points \(src\/index\.ts, src\/subpaths\/\)/),
    ]);
  });

  it("allow same-directory imports, front-door imports and the package root importing any index", () => {
    expect(violationsOf("src/staging/harvest/harvest.ts", `import { LIMIT } from "./limits.js";`)).toEqual([]);
    expect(violationsOf("src/staging/prepare.ts", `import { harvest } from "./harvest/index.js";`)).toEqual([]);
    expect(violationsOf("src/runtime/run.ts", `import {\n  composeSpec,\n} from "../container/index.js";`)).toEqual([]);
    expect(violationsOf("src/agents/claude.ts", `import type { RunPlan } from "../plan/index.js";`)).toEqual([]);
    expect(violationsOf("src/agents/claude.ts", `import { AgentcageError } from "../errors/index.js";`)).toEqual([]);
    expect(violationsOf("src/mounts/validate.ts", `import { AgentcageError } from "../errors/index.js";`)).toEqual([]);
    expect(violationsOf("src/index.ts", `export * from "./cli/index.js";`)).toEqual([]);
  });

  it("allow type-only dockerode imports outside the engine and any dockerode import inside it", () => {
    expect(violationsOf("src/runtime/run.ts", `import type Docker from "dockerode";`)).toEqual([]);
    expect(violationsOf("src/runtime/run.ts", `import { type A, type B } from "dockerode";`)).toEqual([]);
    expect(violationsOf("src/engine/engine.ts", `import Docker from "dockerode";`)).toEqual([]);
  });

  it("allow a test to import the package root, a subpath's door and anything outside src/", () => {
    const text = `import { run } from "../index.js";\nimport { fake } from "../../test/support/fake.js";\nimport { x } from "./run.js";`;
    expect(violationsOf("src/runtime/run.test.ts", text)).toEqual([]);
    // The command's test names an engine's types as a user does: through agentcage/runtime, not src/engine/.
    expect(violationsOf("src/cli/doctor.test.ts", `import type { EngineFacts } from "../subpaths/runtime.js";`)).toEqual([]);
    expect(violationsOf("src/runtime/network/run-network.test.ts", `import { createEngineSet } from "../../subpaths/runtime.js";`)).toEqual([]);
  });

  it("ignore imports written in comments or inside template strings", () => {
    const text = '// import { x } from "../cli/index.js";\nconst s = `\nimport { y } from "../cli/index.js";\n`;';
    expect(violationsOf("src/plan/run-plan.ts", text)).toEqual([]);
  });
});
