// The namespace check: only `pod-security.kubernetes.io/enforce: restricted` passes; anything else
// (no label, baseline, privileged, a warn- or audit-only label) is refused, naming what to run.
import { describe, expect, it } from "vitest";
import { checkNamespace, KubernetesError } from "./index.js";

const namespace = (labels?: Record<string, string>) => ({ metadata: { name: "agents", ...(labels === undefined ? {} : { labels }) } });

describe("the namespace check", () => {
  it("passes a namespace that enforces the restricted standard, answering its name", () => {
    expect(checkNamespace(namespace({ "pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "latest" }))).toBe(
      "agents",
    );
  });

  it.each([
    [undefined, /namespace "agents" has no Pod Security label/],
    [{ "pod-security.kubernetes.io/enforce": "baseline" }, /has pod-security.kubernetes.io\/enforce="baseline" as its Pod Security label/],
    [{ "pod-security.kubernetes.io/enforce": "privileged" }, /enforce="privileged"/],
    [{ "pod-security.kubernetes.io/warn": "restricted", "pod-security.kubernetes.io/audit": "restricted" }, /has no Pod Security label/],
    [{ "pod-security.kubernetes.io/enforce": "Restricted" }, /enforce="Restricted"/],
  ])("refuses %j, saying the kubectl label command that fixes it", (labels, message) => {
    expect(() => checkNamespace(namespace(labels))).toThrow(KubernetesError);
    expect(() => checkNamespace(namespace(labels))).toThrow(message);
    expect(() => checkNamespace(namespace(labels))).toThrow("kubectl label namespace agents pod-security.kubernetes.io/enforce=restricted");
  });
});
