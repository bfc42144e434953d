#!/usr/bin/env node
// agentcage-build-images [--dry-run] [agent] [stand-in] [orchestrator]: builds agentcage's agent
// image, the stand-in model's and the orchestrator's (which startEgressGateway runs) from this
// installed package (see `agentcage-build-images --help`).
// Everything it does is buildImagesCommand in agentcage/testing, typed and tested, which connects
// to the local engine (DOCKER_HOST, else the local socket) only when it builds: --help and
// --dry-run never load dockerode.
import { buildImagesCommand } from "../dist/testing/index.js";

process.exitCode = await buildImagesCommand(process.argv.slice(2));
