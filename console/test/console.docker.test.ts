// The operator console in a real browser (Debian's chromium, driven by playwright-core) against a
// real `agentcage serve --stand-in --sessions` on loopback, its agents in real containers: signing
// in with a tenant's key (kept in the tab's session storage, nowhere else), starting a Run with
// input files and watching its events arrive, its artifacts and patch, cancelling a hung Run,
// following its events across a dropped connection (Last-Event-ID), resuming a kept session, the
// list changing live, another tenant seeing none of it, and hostile text that stays text.
// AGENTCAGE_SCREENSHOTS=<dir> also saves the pictures of docs/console.md of the list and a Run page there.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBrowser } from "../../test/support/browser.js";
import { commandEnv, startCommand, type Started } from "../../test/support/command.js";
import { containersOfRun } from "../../test/support/engine.js";

const root = mkdtempSync(join(tmpdir(), "agentcage-console-browser-"));
const SCREENSHOTS = process.env["AGENTCAGE_SCREENSHOTS"];
/** A Run on the stand-in ends in a few seconds on an idle machine; three times that, and more for a busy one. */
const RUN_ENDS_MS = 45_000;

let service: Started;
let url = "";
let operator = "";
const keys = { alpha: "", beta: "" };
let browser: Browser;

beforeAll(async () => {
  service = startCommand(
    ["serve", "--stand-in", "--sessions", "--port", "0", "--slots", "2", "--runtime-dir", join(root, "rt")],
    commandEnv({ AGENTCAGE_TOKEN: undefined, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined }),
  );
  await service.stderrHas("the console is at", 60_000);
  url = (/listening on (\S+);/.exec(service.stderrSoFar()) ?? [])[1] ?? "";
  operator = readFileSync(join(root, "rt", "service", "token"), "utf8").trim();
  for (const tenant of ["alpha", "beta"] as const) {
    const made = await call(operator, "/v1/keys", { method: "POST", body: JSON.stringify({ tenant }) });
    keys[tenant] = ((await made.json()) as { key: string }).key;
  }
  browser = await openBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  service?.child.kill("SIGTERM");
  await service?.finished;
  rmSync(root, { recursive: true, force: true });
}, 60_000);

/** A TCP relay to the service on loopback whose open connections the test can cut at once. */
async function openRelay(target: URL): Promise<{ url: string; cut: () => void; close: () => Promise<void> }> {
  const open = new Set<Socket>();
  const server = createServer((incoming) => {
    const outgoing = connect(Number(target.port), target.hostname);
    for (const socket of [incoming, outgoing]) {
      open.add(socket);
      socket.on("close", () => open.delete(socket));
      socket.on("error", () => socket.destroy());
    }
    incoming.pipe(outgoing).pipe(incoming);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const cut = () => {
    for (const socket of open) socket.destroy();
  };
  const close = () =>
    new Promise<void>((resolve) => {
      cut();
      server.close(() => resolve());
    });
  return { url: `http://127.0.0.1:${port}/`, cut, close };
}

function call(key: string, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(new URL(path, url), { ...init, headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers } });
}

type Watched = { readonly page: Page; readonly context: BrowserContext; readonly dialogs: string[]; readonly errors: string[] };

/** A fresh tab in a fresh profile, signed in with `key` (at `at`, the service's address unless given); every dialog and page error it raises is kept. */
async function signedIn(key: string, at = url): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(at);
  await page.fill("input[name=key]", key);
  await page.click("button[type=submit]");
  await page.waitForSelector("h1:has-text('Runs')");
  return { page, context, dialogs, errors };
}

/** Starts a Run through the page's form; resolves with its id once its page shows. */
type RunFields = { prompt: string; labels?: string; files?: { name: string; text: string }[]; folder?: string; writable?: boolean };

async function startRun(page: Page, fields: RunFields): Promise<string> {
  await page.click("nav >> text=Start a Run");
  await page.fill("textarea[name=prompt]", fields.prompt);
  if (fields.labels !== undefined) await page.fill("textarea[name=labels]", fields.labels);
  if (fields.files !== undefined)
    await page.setInputFiles(
      "input[name=files]",
      fields.files.map((file) => ({ name: file.name, mimeType: "text/plain", buffer: Buffer.from(file.text) })),
    );
  if (fields.folder !== undefined) await page.setInputFiles("input[name=folder]", fields.folder);
  if (fields.writable === true) await page.check("input[name=writable]");
  await page.click("button:has-text('Start the Run')");
  const shown = await page.waitForSelector("section.run[data-run], [role=alert]");
  const id = await shown.getAttribute("data-run");
  if (id === null) throw new Error(`the service refused the Run: ${await shown.textContent()}`);
  return id;
}

/** Polls `check` (in this process: the page's policy allows no string evaluated in it) until it holds. */
async function until(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  for (const started = Date.now(); Date.now() - started < timeoutMs; await new Promise((resolve) => setTimeout(resolve, 100))) if (await check()) return;
  throw new Error(`still not so after ${timeoutMs} ms: ${check.toString()}`);
}

async function endedAs(page: Page, state: string): Promise<void> {
  await page.waitForSelector(`section.run .heading .state:has-text('${state}')`, { timeout: RUN_ENDS_MS });
  await page.waitForSelector("[data-field=reason]", { timeout: RUN_ENDS_MS });
}

describe("the operator console", () => {
  it("serves a page that runs only its own files, and signs in with a key kept in this tab's session storage alone", async () => {
    const page = await fetch(url);
    const html = await page.text();
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    // The built page: no inline script or style, nothing from another origin.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\bstyle=/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    for (const asset of html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)) {
      const file = await fetch(new URL(asset[1] as string, url));
      expect(file.status).toBe(200);
      expect(file.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
    }

    const wrong = await browser.newContext();
    const tab = await wrong.newPage();
    await tab.goto(url);
    await tab.fill("input[name=key]", "ac_000000000000_not-a-key-this-service-made-at-all-000000000");
    await tab.click("button[type=submit]");
    await tab.waitForSelector("[role=alert]");
    expect(await tab.textContent("[role=alert]")).toMatch(/key/i);
    await wrong.close();

    const { page: signed, context } = await signedIn(keys.alpha);
    expect(await signed.evaluate("sessionStorage.getItem('agentcage.key')")).toBe(keys.alpha);
    expect(await signed.evaluate("localStorage.length")).toBe(0);
    expect((await context.cookies()).length).toBe(0);
    expect(signed.url()).not.toContain(keys.alpha);
    await context.close();
  });

  it("starts a Run with input files, shows its events, Outcome, artifacts (one by one and as a tar) and its patch as a diff", async () => {
    const { page, context, dialogs, errors } = await signedIn(keys.alpha);
    const id = await startRun(page, {
      prompt: "[stand-in:tool_write_bash] [stand-in-write:README.md] Rewrite the readme.",
      labels: "team=red",
      files: [{ name: "README.md", text: "the first line\n<script>window.__pwned = 'patch'</script>\n" }],
      writable: true,
    });
    await endedAs(page, "completed");
    expect(await page.textContent("[data-field=prompt]")).toContain("[stand-in-write:README.md]");
    expect(await page.textContent("[data-field=inputs]")).toBe("1 file, 57 B");
    const kinds = await page.$$eval("[data-event]", (items) => items.map((item) => item.getAttribute("data-event")));
    expect(kinds).toEqual(expect.arrayContaining(["tool_call", "tool_result", "result", "end"]));
    expect(kinds.indexOf("tool_call")).toBeLessThan(kinds.indexOf("end"));
    expect(await page.textContent("[data-event=tool_call]")).toContain("README.md");

    await page.waitForSelector("table.files");
    const files = await page.$$eval("table.files tr[data-file]", (rows) =>
      rows.map((row) => ({ path: row.getAttribute("data-file"), sha256: row.querySelector(".hash")?.textContent })),
    );
    expect(files.map((file) => file.path)).toEqual(expect.arrayContaining(["changes.patch", "files/README.md"]));
    for (const file of files) expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
    const [one] = await Promise.all([page.waitForEvent("download"), page.click("tr[data-file='files/README.md'] button")]);
    expect(readFileSync(await one.path(), "utf8")).toBe("written by the stand-in model\n");
    expect(one.suggestedFilename()).toBe("README.md");
    const [all] = await Promise.all([page.waitForEvent("download"), page.click("button:has-text('Download all')")]);
    const tar = readFileSync(await all.path());
    expect(tar.subarray(257, 262).toString()).toBe("ustar");

    // The patch, rendered by diff2html: the removed line is there as text, and nothing of it ran.
    await page.waitForSelector(".patch .d2h-file-wrapper");
    expect(await page.textContent(".patch")).toContain("<script>window.__pwned = 'patch'</script>");
    expect(await page.textContent(".patch")).toContain("written by the stand-in model");
    // diff2html's file list links to its own anchors; in the console nothing in a patch is a link.
    expect(await page.$$eval(".patch [href], .patch [src]", (found) => found.length)).toBe(0);
    expect(await page.evaluate("window.__pwned")).toBeUndefined();
    if (SCREENSHOTS !== undefined) await page.screenshot({ path: join(SCREENSHOTS, "console-run.png"), fullPage: true });
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    expect(containersOfRun(id)).toEqual([]);
    await context.close();
  });

  it("writes out a terminal's escapes and a bidi override in the patch, keeps its lines, and warns that the change holds them", async () => {
    const { page, context, errors } = await signedIn(keys.alpha);
    const folder = join(root, "trojan");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "README.md"), "the first line\n");
    writeFileSync(join(folder, "notes-\u202etxt.md"), "notes\n");
    writeFileSync(join(folder, "hostile.txt"), "\u001b[2J\u202egnp.exe\n");
    // The agent appends the hostile line to a file, and to a file whose own name holds an override.
    await startRun(page, {
      prompt: "[stand-in:tool_write_bash] [stand-in-bash:cat hostile.txt >> README.md; cat hostile.txt >> notes-*] Add the notes.",
      folder,
      writable: true,
    });
    await endedAs(page, "completed");
    await page.waitForSelector(".patch .d2h-file-wrapper");
    const patch = (await page.textContent(".patch")) ?? "";
    expect(patch).toContain("\\x1b[2J\\u{202e}gnp.exe");
    // A name that is not plain ASCII is in the patch as git quotes it (octal bytes), and shown so, not as folders.
    expect(patch).toContain("notes-\\342\\200\\256txt.md");
    expect(patch).not.toContain("/342/200/256");
    expect(patch).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    expect(await page.$$eval(".patch [title]", (titled) => titled.map((element) => element.getAttribute("title")).join(""))).not.toMatch(/[\u001b\u202e]/);
    // The diff is still a diff: the appended line is one added line of README.md, below the line it kept.
    const added = await page.$$eval(".patch .d2h-ins .d2h-code-line-ctn", (lines) => lines.map((line) => line.textContent));
    expect(added).toEqual(expect.arrayContaining(["\\x1b[2J\\u{202e}gnp.exe"]));
    expect(await page.textContent("[data-field=bidi-or-control]")).toContain("README.md");
    expect(await page.textContent("[data-field=bidi-or-control]")).toContain("notes-\\u{202e}txt.md");
    expect(await page.textContent("[data-field=bidi-or-control]")).not.toContain("\u202e");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("cancels a hung Run after asking, follows its events across a dropped connection, and shows it ended cancelled", async () => {
    // The browser reaches the service through a relay this test can cut, as a flaky network would.
    const relay = await openRelay(new URL(url));
    const { page, context } = await signedIn(keys.alpha, relay.url);
    const streams: { lastEventId: string | undefined }[] = [];
    page.on("request", (request) => {
      if (/\/v1\/runs\/[0-9a-f]{16}\/events/.test(request.url())) streams.push({ lastEventId: request.headers()["last-event-id"] });
    });
    const id = await startRun(page, { prompt: "[stand-in:hang] Wait for an answer that never comes." });
    await page.waitForSelector("section.run .heading .state:has-text('running')", { timeout: RUN_ENDS_MS });
    await page.waitForSelector("[data-event=state]:has-text('running')");

    // The connection drops and comes back: the stream is picked up after the last event seen.
    relay.cut();
    await page.waitForSelector("text=reconnecting…", { timeout: 15_000 });
    await page.waitForSelector("text=reconnecting…", { state: "detached", timeout: 15_000 });
    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(streams.at(-1)?.lastEventId).toMatch(/^\d+$/);

    await page.click("button:has-text('Cancel Run')");
    expect(await page.textContent(".confirm")).toContain("Stop this Run");
    await page.click("button:has-text('Yes, cancel it')");
    await endedAs(page, "cancelled");
    expect(await page.textContent("[data-field=reason]")).toBe("cancelled");
    // Every event once, though the stream was read twice: each state change is listed exactly once.
    const states = await page.$$eval("[data-event=state] .event-body", (items) => items.map((item) => item.textContent));
    expect(states).toEqual(["queued", "starting", "running", "cancelled"]);
    const answer = await call(keys.alpha, `/v1/runs/${id}/cancel`, { method: "POST" });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { state: string }).state).toBe("cancelled");
    expect(containersOfRun(id)).toEqual([]);
    await context.close();
    await relay.close();
  });

  it("resumes a kept session from a Run's page", async () => {
    const { page, context } = await signedIn(keys.alpha);
    const first = await startRun(page, { prompt: "FIRST-TURN: remember the word PELICAN." });
    await endedAs(page, "completed");
    const session = await page.getAttribute("[data-field=session]", "data-session");
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    await page.click("a:has-text('Resume')");
    expect(await page.inputValue("input[name=resumeSession]")).toBe(session);
    await page.fill("textarea[name=prompt]", "SECOND-TURN: which word?");
    await page.click("button:has-text('Start the Run')");
    await page.waitForSelector(`section.run[data-run]:not([data-run='${first}'])`);
    await endedAs(page, "completed");
    expect(await page.getAttribute("[data-field=session]", "data-session")).toBe(session);
    await context.close();
  });

  it("shows new Runs and their state changes in the list without a reload, paged and filtered", async () => {
    const { page, context } = await signedIn(keys.alpha);
    await page.waitForSelector(".live.on");
    const made = await call(keys.alpha, "/v1/runs", {
      method: "POST",
      body: JSON.stringify({ cli: "claude", prompt: "Listed live.", labels: { live: "yes" } }),
    });
    const { id } = (await made.json()) as { id: string };
    await page.waitForSelector(`tr[data-run='${id}']`, { timeout: 15_000 });
    await page.waitForSelector(`tr[data-run='${id}'][data-state='completed']`, { timeout: RUN_ENDS_MS });
    if (SCREENSHOTS !== undefined) await page.screenshot({ path: join(SCREENSHOTS, "console-runs.png") });
    // Typed at a person's pace, across the page's redraws (it counts durations up every second): the text stays.
    await page.type("input[name=label]", "live=yes", { delay: 150 });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await page.inputValue("input[name=label]")).toBe("live=yes");
    await page.press("input[name=label]", "Enter");
    await until(async () => (await page.$$eval("tr[data-run]", (rows) => rows.map((row) => row.getAttribute("data-run")))).join() === id);
    // The filters are in the address: a Run opened from the list, then Back, finds them as they were.
    expect(page.url()).toContain("label=live%3Dyes");
    await page.click(`tr[data-run='${id}'] a`);
    await page.waitForSelector(`section.run[data-run='${id}']`);
    await page.goBack();
    await page.waitForSelector(`tr[data-run='${id}']`);
    expect(await page.inputValue("input[name=label]")).toBe("live=yes");
    await page.selectOption("select[name=state]", "cancelled");
    await page.waitForSelector("text=No Runs match these filters.");
    await context.close();
  });

  it("shows another tenant none of the first one's Runs, and the admin every tenant's", async () => {
    const alphas = ((await (await call(keys.alpha, "/v1/runs")).json()) as { runs: { id: string }[] }).runs;
    expect(alphas.length).toBeGreaterThan(0);
    const beta = await signedIn(keys.beta);
    await beta.page.waitForSelector("text=No Runs yet");
    await beta.page.goto(`${url}#/runs/${alphas[0]?.id}`);
    await beta.page.waitForSelector("[role=alert]");
    expect(await beta.page.textContent("[role=alert]")).toMatch(/no Run/i);

    // The service's page: a tenant sees its own usage only; the admin every tenant's.
    await beta.page.click("nav >> text=Service");
    await beta.page.waitForSelector("table.usage tr[data-tenant]");
    expect(await beta.page.$$eval("table.usage tr[data-tenant]", (rows) => rows.map((row) => row.getAttribute("data-tenant")))).toEqual(["beta"]);
    expect(await beta.page.textContent("section.service")).toContain("claude credential");
    expect(await beta.page.textContent("[data-field=model]")).toContain("stand-in");
    await beta.context.close();

    const admin = await signedIn(operator);
    await admin.page.waitForSelector(`tr[data-run='${alphas[0]?.id}']`);
    expect(await admin.page.textContent(".who")).toContain("every tenant");
    await admin.page.click("nav >> text=Service");
    await admin.page.waitForSelector("table.usage tr[data-tenant='alpha']");
    expect(await admin.page.textContent("table.usage tr[data-tenant='alpha']")).toMatch(/alpha\d+\d+[1-9]/);
    expect(await admin.page.textContent("[data-card=slots]")).toContain("/ 2");
    await admin.context.close();
  });

  it("shows a hostile prompt, label and agent output as text: nothing runs, nothing links away, nothing is reordered", async () => {
    const { page, context, dialogs, errors } = await signedIn(keys.alpha);
    const hostile = [
      "<script>window.__pwned = 'script'</script>",
      "<img src=x onerror=\"window.__pwned = 'img'\">",
      "[click me](javascript:window.__pwned='markdown')",
      "<a href=\"javascript:window.__pwned='link'\">link</a>",
      "\u001b[2J\u001b[31mRED\u001b[0m",
      "invoice\u202Efdp.exe",
    ].join("\n");
    // The input is a whole folder, picked as a person picks one: its files arrive under their paths in it.
    // One path in it is longer than a plain tar header holds (100 bytes): it arrives whole.
    const folder = join(root, "picked");
    const deep = join("notes", "d".repeat(60), "e".repeat(60));
    mkdirSync(join(folder, deep), { recursive: true });
    writeFileSync(join(folder, deep, "hostile.txt"), hostile);
    const id = await startRun(page, {
      prompt: `[stand-in:tool_write_bash] [stand-in-bash:cat ${deep}/hostile.txt] ${hostile}`,
      labels: "note=<img src=x onerror=\"window.__pwned = 'label'\">",
      folder,
    });
    await endedAs(page, "completed");
    await page.waitForSelector("[data-event=tool_result]");
    const prompt = (await page.textContent("[data-field=prompt]")) ?? "";
    const output = (await page.$$eval("[data-event=tool_result]", (items) => items.map((item) => item.textContent).join("\n"))) ?? "";
    for (const shown of [prompt, output]) {
      expect(shown).toContain("<script>window.__pwned = 'script'</script>");
      expect(shown).toContain("javascript:window.__pwned='link'");
      // The terminal's escapes and the bidi override are written out, not obeyed.
      expect(shown).toContain("\\x1b[2J");
      expect(shown).not.toContain("\u001b");
      expect(shown).toContain("invoice\\u{202e}fdp.exe");
      expect(shown).not.toContain("\u202E");
    }
    expect(await page.textContent(".labels")).toContain("<img src=x");
    expect(await page.$$eval("a[href^='javascript:'], [onerror], [onclick]", (found) => found.length)).toBe(0);
    expect(await page.$$eval("img", (found) => found.length)).toBe(0);
    expect(await page.evaluate("window.__pwned")).toBeUndefined();
    await page.click("nav >> text=Runs");
    await page.waitForSelector(`tr[data-run='${id}']`);
    expect(await page.evaluate("window.__pwned")).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
