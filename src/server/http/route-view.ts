// A Run as every Run route answers it (runSchema): its record, its place in the queue while it
// waits, and its Outcome once it has ended, served as the runner answered it. And the one 404 the
// routes give for a Run id the service does not know.

import type { z } from "zod";
import type { RunService } from "../runs/index.js";
import { errorBody, type outcomeSchema } from "./schemas.js";
import type { RunRecord } from "../runs/index.js";

export const RUN_NOT_FOUND = errorBody("not_found", "no Run with that id; list them with GET /v1/runs");

export async function runView(service: RunService, record: RunRecord) {
  const position = service.position(record.id);
  // As the runner answered it (AgentOutcome); the schema serves it as it is.
  const outcome = record.endedAt === undefined ? undefined : ((await service.outcome(record.id)) as z.infer<typeof outcomeSchema> | undefined);
  return { ...record, ...(position === undefined ? {} : { queuePosition: position }), ...(outcome === undefined ? {} : { outcome }) };
}
