// The plan for the test image's `sample-agent`: the smallest complete Run Plan, for a reader of
// this code and for the engine tests. Its reader is strict: only {"type":"result","ok":true} is ok.

import type { ReaderVerdict, RunPlanFunction } from "../src/index.js";

export type SampleAnswer = ReaderVerdict & { readonly text?: string };

/** Reads sample-agent's JSON lines: the last `answer` is the text, the `result` line decides ok. */
export async function readSampleAgent(stdout: AsyncIterable<Uint8Array>): Promise<SampleAnswer> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stdout) buffered += decoder.decode(chunk, { stream: true });
  buffered += decoder.decode();
  let text: string | undefined;
  for (const line of buffered.split("\n")) {
    if (line.trim() === "") continue;
    const record = JSON.parse(line) as { type?: string; text?: string; ok?: boolean };
    if (record.type === "answer") text = record.text;
    if (record.type === "result")
      return record.ok === true ? { ok: true, ...(text === undefined ? {} : { text }) } : { ok: false, error: "sample-agent reported failure" };
  }
  return { ok: false, error: "sample-agent ended without a result line" };
}

export const sampleAgentPlan: RunPlanFunction<SampleAnswer> = (prompt) => ({
  args: ["sample-agent"],
  stdin: prompt.text,
  outcome: readSampleAgent,
});
