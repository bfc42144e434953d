// Starting a Run from the page: CLI, model, prompt, budget caps, labels, input files (picked one
// by one or as a folder, sent as a tar archive beside the request), a writable workspace, and the
// session to resume. The service checks everything; its refusal is shown as it said it.

import { useState } from "preact/hooks";
import type { Api, RunRequest } from "../api";
import { hrefOf } from "../route";
import { type Chosen, tarOf } from "../tar";

type Form = {
  cli: "claude" | "codex";
  model: string;
  prompt: string;
  maxTurns: string;
  maxTokens: string;
  maxCostUsd: string;
  maxWallSeconds: string;
  labels: string;
  writable: boolean;
  resumeSession: string;
};

export function NewRunPage({ api, resume, cli }: { api: Api; resume: string | undefined; cli: string | undefined }) {
  const [form, setForm] = useState<Form>({
    cli: cli === "codex" ? "codex" : "claude",
    model: "",
    prompt: "",
    maxTurns: "",
    maxTokens: "",
    maxCostUsd: "",
    maxWallSeconds: "",
    labels: "",
    writable: false,
    resumeSession: resume ?? "",
  });
  const [chosen, setChosen] = useState<Chosen>({ files: [], folder: [] });
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const set = (change: Partial<Form>) => setForm({ ...form, ...change });

  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const request = requestOf(form);
      const none = chosen.files.length === 0 && chosen.folder.length === 0;
      const run = await api.submit(request, none ? undefined : await tarOf(chosen));
      location.hash = hrefOf({ page: "run", id: run.id });
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <h1>Start a Run</h1>
      <form
        class="new-run"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <label>
          CLI
          <select name="cli" value={form.cli} onChange={(event) => set({ cli: event.currentTarget.value as Form["cli"] })}>
            <option value="claude">claude</option>
            <option value="codex">codex</option>
          </select>
        </label>
        <label>
          Model
          <input name="model" placeholder="the CLI's default" value={form.model} onInput={(event) => set({ model: event.currentTarget.value })} />
        </label>
        <label class="wide">
          Prompt
          <textarea name="prompt" rows={6} required value={form.prompt} onInput={(event) => set({ prompt: event.currentTarget.value })} />
        </label>
        <fieldset>
          <legend>Budget caps (empty: none)</legend>
          <label>
            Turns
            <input name="maxTurns" inputmode="numeric" value={form.maxTurns} onInput={(event) => set({ maxTurns: event.currentTarget.value })} />
          </label>
          <label>
            Tokens
            <input name="maxTokens" inputmode="numeric" value={form.maxTokens} onInput={(event) => set({ maxTokens: event.currentTarget.value })} />
          </label>
          <label>
            Dollars
            <input name="maxCostUsd" inputmode="decimal" value={form.maxCostUsd} onInput={(event) => set({ maxCostUsd: event.currentTarget.value })} />
          </label>
          <label>
            Seconds
            <input
              name="maxWallSeconds"
              inputmode="numeric"
              value={form.maxWallSeconds}
              onInput={(event) => set({ maxWallSeconds: event.currentTarget.value })}
            />
          </label>
        </fieldset>
        <label class="wide">
          Labels (one key=value a line)
          <textarea name="labels" rows={2} value={form.labels} onInput={(event) => set({ labels: event.currentTarget.value })} />
        </label>
        <fieldset>
          <legend>Input files</legend>
          <label>
            Files
            <input name="files" type="file" multiple onChange={(event) => setChosen({ ...chosen, files: [...(event.currentTarget.files ?? [])] })} />
          </label>
          <label>
            A folder
            <input
              name="folder"
              type="file"
              // webkitdirectory picks a whole folder; JSX's types do not name it.
              ref={(input) => input?.setAttribute("webkitdirectory", "")}
              onChange={(event) => setChosen({ ...chosen, folder: [...(event.currentTarget.files ?? [])] })}
            />
          </label>
          <p class="hint wide">{chosenSaid(chosen)}</p>
          <label class="check">
            <input name="writable" type="checkbox" checked={form.writable} onChange={(event) => set({ writable: event.currentTarget.checked })} />
            Writable: the agent edits a copy, and its changes come back as a patch
          </label>
        </fieldset>
        <label>
          Resume session
          <input name="resumeSession" placeholder="none" value={form.resumeSession} onInput={(event) => set({ resumeSession: event.currentTarget.value })} />
        </label>
        <div class="wide">
          <button type="submit" disabled={busy}>
            {busy ? "Starting…" : "Start the Run"}
          </button>
        </div>
      </form>
      {error !== undefined && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

function chosenSaid({ files, folder }: Chosen): string {
  const plural = (n: number) => `${n} file${n === 1 ? "" : "s"}`;
  if (files.length === 0 && folder.length === 0) return "None: the agent starts in an empty folder.";
  const parts = [
    ...(files.length === 0 ? [] : [`${plural(files.length)} picked`]),
    ...(folder.length === 0 ? [] : [`${plural(folder.length)} from the folder`]),
  ];
  return `${parts.join(" and ")}: the agent finds them in its working folder.`;
}

const WHOLE = /^\d+$/;
const DECIMAL = /^\d+(\.\d+)?$/;

/** A cap as the form has it: empty (no cap), or a plain number; anything else is refused naming the field. */
function capOf(label: string, text: string, pattern: RegExp, example: string): number | undefined {
  const given = text.trim();
  if (given === "") return undefined;
  if (!pattern.test(given))
    throw new Error(
      `${label} ${JSON.stringify(given)} is not ${pattern === WHOLE ? "a whole number" : "a number"}; write e.g. ${example}, or leave it empty for no cap`,
    );
  return Number(given);
}

/** The form as a Run request: empty fields left out, numbers as numbers (the service checks their ranges). */
function requestOf(form: Form): RunRequest {
  const caps = {
    maxTurns: capOf("Turns", form.maxTurns, WHOLE, "20"),
    maxTokens: capOf("Tokens", form.maxTokens, WHOLE, "200000"),
    maxCostUsd: capOf("Dollars", form.maxCostUsd, DECIMAL, "0.50"),
    maxWallSeconds: capOf("Seconds", form.maxWallSeconds, WHOLE, "600"),
  };
  const budget = Object.fromEntries(Object.entries(caps).filter(([, value]) => value !== undefined));
  const labels: Record<string, string> = {};
  for (const line of form.labels.split("\n")) {
    const at = line.indexOf("=");
    if (line.trim() === "") continue;
    if (at < 1) throw new Error(`Label ${JSON.stringify(line.trim())} is not key=value; write one key=value a line, e.g. team=red`);
    labels[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  if (form.prompt.trim() === "") throw new Error("The prompt is empty; write what the agent should do");
  return {
    cli: form.cli,
    prompt: form.prompt,
    ...(form.model.trim() === "" ? {} : { model: form.model.trim() }),
    ...(Object.keys(budget).length === 0 ? {} : { budget }),
    ...(Object.keys(labels).length === 0 ? {} : { labels }),
    ...(form.writable ? { writable: true } : {}),
    ...(form.resumeSession.trim() === "" ? {} : { resumeSession: form.resumeSession.trim() }),
  } as RunRequest;
}
