// `agentcage plan`: the same words as `run`, answered with the one `docker run` of that Run (or, with
// --kubernetes, its Pod and NetworkPolicy), starting nothing. Invariant: what plan prints is what a
// Run with no network made for it would run, so a policy that makes a network (and an egress
// proxy) is refused rather than left out of the words; on Kubernetes, where the proxy is a Pod of its
// own, a Run's Pod under model prints with the proxy's address a marked placeholder.

import type { Command } from "commander";
import { checkBudgetFlags, checkedRun, runOptions, warnOfReach, type RunFlags } from "./command-flags.js";
import type { CheckedRun } from "./run-args.js";
import { UsageError } from "./options.js";
import type { ProgramIo } from "./io.js";

type PlanFlags = RunFlags & { kubernetes?: boolean; namespace?: string; runtimeClass?: string };

/** What plan prints a Run as, chosen once from --kubernetes: its flags checked, the policies it prints, and the printing. */
type Rendering = {
  /** Refuses, as a usage error, a flag this rendering cannot print or that means nothing without it. */
  readonly checkFlags: (flags: PlanFlags) => void;
  /** Refuses, as a usage error, a network policy whose Run this rendering cannot print. */
  readonly checkPolicy: (policy: string | undefined) => void;
  readonly print: (checked: CheckedRun, flags: PlanFlags, io: ProgramIo) => Promise<number>;
};

export function addPlanCommand(program: Command, io: ProgramIo, settle: (code: number) => void): void {
  runOptions(program.command("plan").description("print the docker run command for the same arguments, starting nothing"), io.env)
    .option("--kubernetes", "print the Run's Kubernetes Pod and NetworkPolicy (JSON, for kubectl apply --dry-run=server -f -) instead")
    .option("--namespace <name>", "with --kubernetes: the namespace of the Pod (default agentcage)")
    .option("--runtime-class <name>", "with --kubernetes: the cluster's RuntimeClass for the Pod, e.g. gvisor; default --container-runtime")
    .action(async (cli: string, rawPrompt: string, flags: PlanFlags) => {
      // The one reading of --kubernetes: every other question is the rendering's.
      const rendering = flags.kubernetes === true ? POD : DOCKER_RUN;
      rendering.checkFlags(flags);
      const checked = await checkedRun(cli, rawPrompt, flags, io);
      rendering.checkPolicy(flags.networkPolicy);
      checkBudgetFlags(checked, flags);
      warnOfReach(flags, io);
      settle(await rendering.print(checked, flags, io));
    });
}

/** A policy that makes a network for the Run (and an egress proxy), which plan does not make; `prints` names what plan prints instead. */
function makesANetwork(policy: string, prints: string): UsageError {
  return new UsageError(
    `--network-policy ${policy} makes a network for the Run${policy === "open" ? "" : " and starts the egress proxy"}, which plan does not; plan prints ${prints} of a Run with no network (leave --network-policy out)`,
  );
}

/** The one `docker run` of a Run with no network made for it. */
const DOCKER_RUN: Rendering = {
  // --namespace and --runtime-class mean nothing without --kubernetes.
  checkFlags: (flags) => {
    for (const [flag, value] of [
      ["--namespace", flags.namespace],
      ["--runtime-class", flags.runtimeClass],
    ] as const) {
      if (value !== undefined) throw new UsageError(`${flag} ${JSON.stringify(value)} is for a Pod; add --kubernetes, or leave it out`);
    }
  },
  checkPolicy: (policy) => {
    if (policy !== undefined && policy !== "none") throw makesANetwork(policy, "the one docker run");
  },
  print: async (checked, flags, io) => {
    const { plan } = await import("./plan.js");
    return plan(
      {
        ...checked,
        image: flags.image,
        runtimeDir: flags.runtimeDir,
        networks: flags.network ?? [],
        standIn: flags.standIn === true,
        ...(flags.containerRuntime === undefined ? {} : { containerRuntime: flags.containerRuntime }),
      },
      io,
    );
  },
};

/**
 * A Run's Pod and NetworkPolicy. The proxy is a Pod of its own, made before the Run's: under model they
 * print with the proxy's address a marked placeholder. A Pod has no Docker network and no stand-in beside it.
 */
const POD: Rendering = {
  checkFlags: (flags) => {
    if (flags.network !== undefined)
      throw new UsageError("--network names a Docker network, which a Pod has none of; leave it out with --kubernetes (its reach is its NetworkPolicy)");
    if (flags.standIn === true)
      throw new UsageError("--stand-in starts the stand-in model beside the agent's container, which plan --kubernetes does not; leave it out");
  },
  checkPolicy: (policy) => {
    if (policy === undefined || policy === "none" || policy === "model") return;
    throw new UsageError(
      `--network-policy ${policy} is not one plan --kubernetes prints: plan --kubernetes prints the Pod of a Run under none or model (leave --network-policy out, or write model)`,
    );
  },
  print: async (checked, flags, io) => {
    const { planPod } = await import("./plan-pod.js");
    return planPod(
      {
        ...checked,
        image: flags.image,
        runtimeDir: flags.runtimeDir,
        ...(flags.namespace === undefined ? {} : { namespace: flags.namespace }),
        ...(flags.runtimeClass === undefined ? {} : { runtimeClassName: flags.runtimeClass }),
        ...(flags.containerRuntime === undefined ? {} : { containerRuntime: flags.containerRuntime }),
        ...(flags.networkPolicy === "model" ? { networkPolicy: "model" as const } : {}),
      },
      io,
    );
  },
};
