// The agent image a runner, the command and the service use unless told otherwise: the one
// `agentcage image build agent` (and provisioning) builds and tags.

export const AGENT_IMAGE = "agentcage-agent:latest";
