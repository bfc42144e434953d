// The agent image a runner, the command and the service use unless told otherwise: the one
// `agentcage image build agent` (and provisioning) builds and tags.

/** The agent image's tag (images/agent, both CLIs in it), as `agentcage image build agent` builds it. */
export const AGENT_IMAGE = "agentcage-agent:latest";
