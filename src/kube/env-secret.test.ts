// The Run's Secret holds exactly the secret environment the Pod reads by secretKeyRef (no public
// value, no more names), carries the Run's labels, and passes Kubernetes' schema.
import { Secret } from "kubernetes-models/v1/Secret";
import { describe, expect, it } from "vitest";
import { manySpecs } from "../../test/support/kube-specs.js";
import { composeSpec, validateAgentContainer } from "../container/index.js";
import { renderEnvSecret } from "./env-secret.js";
import { renderPodManifest } from "./manifest.js";

describe("the Run's Secret", () => {
  it("holds exactly the keys the Pod reads by secretKeyRef, over many specs", () => {
    for (const { spec } of manySpecs(11, 100)) {
      const secret = renderEnvSecret(spec, {});
      const refs = (renderPodManifest(spec, { outBytes: 1024, network: { policy: "none" } }).pod.spec?.containers[0]?.env ?? []).flatMap((e) =>
        e.valueFrom?.secretKeyRef === undefined ? [] : [e.valueFrom.secretKeyRef.key],
      );
      expect(Object.keys(secret?.stringData ?? {})).toEqual(refs);
      if (secret === undefined) continue;
      expect(() => new Secret(secret).validate()).not.toThrow();
      expect(secret.metadata?.labels).toEqual(spec.labels);
      expect(secret).toMatchObject({ type: "Opaque", immutable: true, metadata: { name: `${spec.name}-env`, namespace: "agentcage" } });
    }
  });

  it("is not made when the agent has no secret environment", () => {
    const container = validateAgentContainer({ image: "a:1", user: "10002:10002", publicEnv: { LANG: "C.UTF-8" } });
    expect(renderEnvSecret(composeSpec(container, { runId: "00000000000000aa", planArgs: [], deadlineSeconds: 60 }), {})).toBeUndefined();
  });
});
