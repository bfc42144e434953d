// How a Pod's status reads for a Run: each waiting reason Kubernetes does not get past ends the Run
// at once; one that may pass keeps it starting; the deadline's kill is an end even with no container status.
import { describe, expect, it } from "vitest";
import { podState } from "./pod-status.js";

const waiting = (reason: string) => ({ status: { phase: "Pending", containerStatuses: [{ name: "agent", state: { waiting: { reason, message: "m" } } }] } });

describe("a Pod's state", () => {
  it.each(["ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull", "CreateContainerConfigError", "CreateContainerError"])(
    "is refused at once on %s",
    (reason) => {
      expect(podState(waiting(reason))).toEqual({ kind: "refused", reason, message: "m" });
    },
  );

  it.each(["ContainerCreating", "ErrImagePull"])("is still starting on %s, which may pass", (reason) => {
    expect(podState(waiting(reason))).toEqual({ kind: "starting", reason, message: "m" });
  });

  it("has ended past activeDeadlineSeconds (Failed, DeadlineExceeded) before any container status says so", () => {
    expect(podState({ status: { phase: "Failed", reason: "DeadlineExceeded" } })).toEqual({ kind: "ended", exitCode: -1, reason: "DeadlineExceeded" });
  });

  it("reads only the agent's container, and is starting when nothing is known yet", () => {
    expect(podState({ status: { phase: "Pending", containerStatuses: [{ name: "other", state: { running: {} } }] } })).toEqual({ kind: "starting" });
    expect(podState({})).toEqual({ kind: "starting" });
  });

  it("carries the Pod's addresses once it runs, both of a dual-stack Pod's, each once", () => {
    const running = { name: "agent", state: { running: {} } };
    expect(
      podState({ status: { phase: "Running", podIP: "10.244.1.7", podIPs: [{ ip: "10.244.1.7" }, { ip: "fd00:10:244::7" }], containerStatuses: [running] } }),
    ).toEqual({ kind: "running", podIPs: ["10.244.1.7", "fd00:10:244::7"] });
    expect(podState({ status: { phase: "Running", containerStatuses: [running] } })).toEqual({ kind: "running" });
  });

  it("waits for the inputs while the inputs container runs, the agent still PodInitializing", () => {
    const agent = { name: "agent", state: { waiting: { reason: "PodInitializing" } } };
    expect(podState({ status: { phase: "Pending", initContainerStatuses: [{ name: "inputs", state: { running: {} } }], containerStatuses: [agent] } })).toEqual(
      {
        kind: "inputs",
      },
    );
    expect(podState({ status: { phase: "Pending", containerStatuses: [agent] } })).toEqual({ kind: "starting" });
  });

  it("is refused when the inputs container's tar failed, before the Pod's phase says Failed, naming its exit", () => {
    const failed = { name: "inputs", state: { terminated: { exitCode: 2, reason: "Error", message: "tar: short read" } } };
    expect(podState({ status: { phase: "Failed", initContainerStatuses: [failed] } })).toEqual({
      kind: "refused",
      reason: "InputsNotUnpacked",
      message: "the Run's inputs could not be unpacked in the Pod (tar exited 2: tar: short read)",
    });
  });

  it("is refused at once when the inputs container's image cannot be pulled, which shows there first", () => {
    const pull = { name: "inputs", state: { waiting: { reason: "ImagePullBackOff", message: "Back-off pulling image" } } };
    const agent = { name: "agent", state: { waiting: { reason: "PodInitializing" } } };
    expect(podState({ status: { phase: "Pending", initContainerStatuses: [pull], containerStatuses: [agent] } })).toEqual({
      kind: "refused",
      reason: "ImagePullBackOff",
      message: "Back-off pulling image",
    });
  });
});
