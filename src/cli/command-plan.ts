// `agentcage plan`: the same words as `run`, answered with the one `docker run` of that Run (or, with
// --kubernetes, its Pod and NetworkPolicy), starting nothing. Invariant: what plan prints is what a
// Run with no network made for it would run, so a policy that makes a network (and an egress
// proxy) is refused rather than left out of the words; on Kubernetes, where the proxy is a Pod of its
// own, a Run's Pod under model prints with the proxy's address a marked placeholder.

import type { Command } from "commander";
import { checkBudgetFlags, checkedRun, runOptions, warnOfReach, type RunFlags } from "./command-flags.js";
import { UsageError } from "./options.js";
import type { ProgramIo } from "./io.js";

type PlanFlags = RunFlags & { kubernetes?: boolean; namespace?: string; runtimeClass?: string };

export function addPlanCommand(program: Command, io: ProgramIo, settle: (code: number) => void): void {
  runOptions(program.command("plan").description("print the docker run command for the same arguments, starting nothing"), io.env)
    .option("--kubernetes", "print the Run's Kubernetes Pod and NetworkPolicy (JSON, for kubectl apply --dry-run=server -f -) instead")
    .option("--namespace <name>", "with --kubernetes: the namespace of the Pod (default agentcage)")
    .option("--runtime-class <name>", "with --kubernetes: the cluster's RuntimeClass for the Pod, e.g. gvisor; default --container-runtime")
    .action(async (cli: string, rawPrompt: string, flags: PlanFlags) => {
      checkKubernetesFlags(flags);
      const checked = await checkedRun(cli, rawPrompt, flags, io);
      // On Kubernetes the proxy is a Pod of its own, made before the Run's: its Pod and NetworkPolicy print with the proxy's address as a placeholder.
      const podBehindProxy = flags.kubernetes === true && flags.networkPolicy === "model";
      if (flags.kubernetes === true && flags.networkPolicy !== undefined && flags.networkPolicy !== "none" && !podBehindProxy) {
        throw new UsageError(
          `--network-policy ${flags.networkPolicy} is not one plan --kubernetes prints: plan --kubernetes prints the Pod of a Run under none or model (leave --network-policy out, or write model)`,
        );
      }
      if (flags.networkPolicy !== undefined && flags.networkPolicy !== "none" && !podBehindProxy) {
        throw new UsageError(
          `--network-policy ${flags.networkPolicy} makes a network for the Run${flags.networkPolicy === "open" ? "" : " and starts the egress proxy"}, which plan does not; plan prints ${flags.kubernetes === true ? "the Pod and NetworkPolicy" : "the one docker run"} of a Run with no network (leave --network-policy out)`,
        );
      }
      checkBudgetFlags(checked, flags);
      warnOfReach(flags, io);
      if (flags.kubernetes === true) {
        const { planPod } = await import("./plan-pod.js");
        settle(
          await planPod(
            {
              ...checked,
              image: flags.image,
              runtimeDir: flags.runtimeDir,
              ...(flags.namespace === undefined ? {} : { namespace: flags.namespace }),
              ...(flags.runtimeClass === undefined ? {} : { runtimeClassName: flags.runtimeClass }),
              ...(flags.containerRuntime === undefined ? {} : { containerRuntime: flags.containerRuntime }),
              ...(podBehindProxy ? { networkPolicy: "model" as const } : {}),
            },
            io,
          ),
        );
        return;
      }
      const { plan } = await import("./plan.js");
      settle(
        await plan(
          {
            ...checked,
            image: flags.image,
            runtimeDir: flags.runtimeDir,
            networks: flags.network ?? [],
            standIn: flags.standIn === true,
            ...(flags.containerRuntime === undefined ? {} : { containerRuntime: flags.containerRuntime }),
          },
          io,
        ),
      );
    });
}

/** A Pod has no Docker network and no stand-in beside it; --namespace and --runtime-class mean nothing without --kubernetes. */
function checkKubernetesFlags(flags: PlanFlags): void {
  if (flags.kubernetes === true) {
    if (flags.network !== undefined)
      throw new UsageError("--network names a Docker network, which a Pod has none of; leave it out with --kubernetes (its reach is its NetworkPolicy)");
    if (flags.standIn === true)
      throw new UsageError("--stand-in starts the stand-in model beside the agent's container, which plan --kubernetes does not; leave it out");
    return;
  }
  for (const [flag, value] of [
    ["--namespace", flags.namespace],
    ["--runtime-class", flags.runtimeClass],
  ] as const) {
    if (value !== undefined) throw new UsageError(`${flag} ${JSON.stringify(value)} is for a Pod; add --kubernetes, or leave it out`);
  }
}
