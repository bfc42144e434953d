// The agent card: who this agent is (one skill per CLI), where its JSON-RPC endpoint is (for A2A
// 1.0 and, on the same URL, 0.3), that every call needs the service's bearer token, and which
// message metadata a caller may set. It holds nothing secret: not the token, not a path on disk.

import type { AgentCard, AgentSkill } from "@a2a-js/sdk";
import { duplicateInterfacesForLegacy } from "@a2a-js/sdk/compat/v0_3";
import { AGENT_CLIS, DEFAULT_AGENT_CLI, perCli, type AgentCli } from "../../agents/index.js";

const METADATA_HELP =
  `Message metadata: \`cli\` (${AGENT_CLIS.map((cli) => `"${cli}"`).join(" or ")}; default "${DEFAULT_AGENT_CLI}"), and any of \`model\`, \`effort\`, \`maxTurns\`, \`timeoutSeconds\`, ` +
  "`systemPrompt`, `web`, `noTools`, `resumeSession` (when the service keeps sessions: agentcage serve --sessions) as in POST /v1/runs; `outputSchema` (a JSON Schema, draft-07 or 2020-12): the final " +
  "answer (the JSON its final text holds, else the text as a string) is checked against it, and a mismatch fails the task naming each field.";

/** One skill per CLI, from its adapter: who makes it, its provider, examples of what to ask it. */
const SKILLS: Readonly<Record<AgentCli, Omit<AgentSkill, "id" | "inputModes" | "outputModes" | "securityRequirements">>> = perCli(
  ({ cli, maker, modelProvider, examples }) => ({
    name: cli,
    description: `Runs ${maker}'s ${cli} CLI on the message's text in a fresh, locked-down container (one Run per task). Chosen with metadata.cli "${cli}"${cli === DEFAULT_AGENT_CLI ? ", the default" : ""}. ${METADATA_HELP}`,
    tags: ["coding", cli, modelProvider],
    examples: [...examples],
  }),
);

/** The card for an endpoint URL: absolute when served, as clients connect to what it names. */
export function agentCard(endpointUrl: string): AgentCard {
  return {
    name: "agentcage",
    description:
      `Runs an AI coding-agent CLI (${AGENT_CLIS.join(" or ")}) in one fresh, locked-down container per task; a task's id is the id of its Run ` +
      `in the service's own API (/v1/runs/{id}). ${METADATA_HELP} Long tasks: stream them (message/stream) or ask with returnImmediately and poll tasks/get, or have each task event pushed (pushNotificationConfig): ` +
      "every push is signed per Standard Webhooks with your tenant's webhook secret (GET /v1/tenant) and carries the config's token in X-A2A-Notification-Token.",
    supportedInterfaces: duplicateInterfacesForLegacy([{ url: endpointUrl, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" }], ["JSONRPC"]),
    provider: undefined,
    version: "1",
    // Push notifications: each task event POSTed to the configs a caller set, through the service's
    // webhook path (the address checked and pinned, signed with the tenant's webhook secret).
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: {
            scheme: "Bearer",
            bearerFormat: "",
            description:
              "An API key (ac_...) from agentcage keys create, or the token the service was started with (AGENTCAGE_TOKEN or AGENTCAGE_TOKEN_FILE), as Authorization: Bearer <key>. A key sees its own tenant's tasks only; a runs:read key may not send messages or cancel tasks.",
          },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: AGENT_CLIS.map((cli) => ({
      id: cli,
      ...SKILLS[cli],
      inputModes: ["text/plain", "application/json"],
      outputModes: ["text/plain", "application/json"],
      securityRequirements: [],
    })),
    signatures: [],
  };
}
