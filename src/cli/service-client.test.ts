// Where the administration commands get the service's token, and what a refusal means: the token
// from AGENTCAGE_TOKEN, else AGENTCAGE_TOKEN_FILE, else the one a serve on this machine wrote, which
// is never sent to a service elsewhere; each HTTP refusal said with the service's own message and
// the exit status it means. Over a real socket, to a server that answers as the service does.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "./exit-codes.js";
import { answered, askService, connectService } from "./service-client.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-service-client-"));
const runtimeDir = join(root, "rt");
const LOCAL = "http://127.0.0.1:8750";
let server: Server;
let url = "";
let lastAuthorization: string | undefined;

beforeAll(async () => {
  mkdirSync(join(runtimeDir, "service"), { recursive: true });
  writeFileSync(join(runtimeDir, "service", "token"), "written-by-serve\n");
  server = createServer((request, response) => {
    lastAuthorization = request.headers.authorization;
    // GET /v1/tenants/<status> answers that status.
    const status = Number(request.url?.split("/").pop());
    response.writeHead(status, { "content-type": "application/json", "retry-after": "7" });
    response.end(JSON.stringify(status < 400 ? { fine: true } : { error: "some_code", message: "the service's own sentence \u001b[31m" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  rmSync(root, { recursive: true, force: true });
});

describe("the token", () => {
  it("is AGENTCAGE_TOKEN first, then the file AGENTCAGE_TOKEN_FILE names, then what serve wrote under --runtime-dir", async () => {
    const file = join(root, "token-file");
    writeFileSync(file, "from-the-file\n");
    expect((await connectService({ remote: LOCAL, runtimeDir }, { AGENTCAGE_TOKEN: "direct", AGENTCAGE_TOKEN_FILE: file })).token).toBe("direct");
    expect((await connectService({ remote: LOCAL, runtimeDir }, { AGENTCAGE_TOKEN: "", AGENTCAGE_TOKEN_FILE: file })).token).toBe("from-the-file");
    expect((await connectService({ remote: LOCAL, runtimeDir }, {})).token).toBe("written-by-serve");
    expect((await connectService({ remote: "http://localhost:8750", runtimeDir }, {})).token).toBe("written-by-serve");
  });

  it("never sends the token serve wrote here to a service elsewhere", async () => {
    await expect(connectService({ remote: "https://agentcage.example.com", runtimeDir }, {})).rejects.toThrow(
      /^no token for https:\/\/agentcage.example.com: set AGENTCAGE_TOKEN/,
    );
  });

  it("says what is missing: a file that is not there, an empty one, no token at all", async () => {
    await expect(connectService({ remote: LOCAL, runtimeDir }, { AGENTCAGE_TOKEN_FILE: join(root, "absent") })).rejects.toThrow(
      `AGENTCAGE_TOKEN_FILE ${JSON.stringify(join(root, "absent"))} does not exist`,
    );
    writeFileSync(join(root, "empty"), "\n");
    await expect(connectService({ remote: LOCAL, runtimeDir }, { AGENTCAGE_TOKEN_FILE: join(root, "empty") })).rejects.toThrow("is empty");
    await expect(connectService({ remote: LOCAL, runtimeDir: join(root, "none") }, {})).rejects.toThrow(
      `${join(root, "none", "service", "token")} is not there`,
    );
    await expect(connectService({ remote: "ftp://x", runtimeDir }, {})).rejects.toThrow('--remote "ftp://x" is not http or https');
  });
});

describe("a refusal", () => {
  const said = async (status: number) => {
    const service = await connectService({ remote: url, runtimeDir }, { AGENTCAGE_TOKEN: "the-token" });
    let stderr = "";
    const code = await answered({ stderr: { write: (text: string) => Boolean((stderr += text)) } as never }, async () => {
      await askService(service, `GET /v1/tenants/${status}`, (api, signal) =>
        api.GET("/v1/tenants/{name}", { params: { path: { name: String(status) } }, signal }),
      );
      return EXIT.completed;
    });
    return { code, stderr };
  };

  it("sends the token as a bearer", async () => {
    expect((await said(200)).code).toBe(EXIT.completed);
    expect(lastAuthorization).toBe("Bearer the-token");
  });

  it.each([
    [400, EXIT.usage],
    [401, EXIT.usage],
    [403, EXIT.usage],
    [404, EXIT.usage],
    [429, EXIT.unavailable],
    [503, EXIT.unavailable],
    [500, EXIT.failed],
  ])("HTTP %i is said with the service's message and exits %i", async (status, exit) => {
    const { code, stderr } = await said(status);
    expect(code).toBe(exit);
    expect(stderr).toContain(`HTTP ${status} some_code: the service's own sentence \\x1b[31m`);
    expect(stderr).not.toContain("\u001b");
    expect(stderr).not.toContain("the-token");
  });

  it("an unreachable service exits 3", async () => {
    const service = await connectService({ remote: "http://127.0.0.1:9", runtimeDir }, { AGENTCAGE_TOKEN: "t" });
    let stderr = "";
    const code = await answered({ stderr: { write: (text: string) => Boolean((stderr += text)) } as never }, async () => {
      await askService(service, "GET /v1/keys", (api, signal) => api.GET("/v1/keys", { signal }));
      return EXIT.completed;
    });
    expect(code).toBe(EXIT.unavailable);
    expect(stderr).toContain("the service at http://127.0.0.1:9 cannot be reached");
  });
});
