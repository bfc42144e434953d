// Holds the exact field list to Kubernetes' own schemas (every name in it is a field of the schema
// it sits under, as kubernetes-models 4.5.1 compiled it), and proves unknown fields are refused.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { seeded, specFor } from "../../test/support/kube-specs.js";
import {
  type FieldShape,
  NETWORK_POLICY_FIELDS,
  POD_FIELDS,
  PROXY_NETWORK_POLICY_FIELDS,
  PROXY_POD_FIELDS,
  SERVICE_FIELDS,
  unknownFields,
} from "./known-fields.js";
import { KubernetesError } from "./kube-error.js";
import { renderNetworkPolicy } from "./render-network-policy.js";
import { renderPod } from "./render-pod.js";
import { validatedNetworkPolicy, validatedPod } from "./validate.js";

const require = createRequire(import.meta.url);

/** The compiled validator of one schema: it tests `data.<field>` for each property the schema declares. */
function schemaSource(schema: string): string {
  if (schema.startsWith("IoK8sApimachinery")) return readFileSync(require.resolve(`@kubernetes-models/apimachinery/_schemas/${schema}`), "utf8");
  // kubernetes-models exports no _schemas path: reach it beside the v1 models it ships with.
  return readFileSync(join(dirname(require.resolve("kubernetes-models/v1")), "..", "_schemas", `${schema}.js`), "utf8");
}

function fieldsUnder(shape: FieldShape): Array<[string, string]> {
  if (typeof shape === "string") return [];
  if ("each" in shape) return fieldsUnder(shape.each);
  return Object.entries(shape.fields).flatMap(([field, inner]) => [[shape.schema, field] as [string, string], ...fieldsUnder(inner)]);
}

const OPTIONS = { outBytes: 1024 * 1024, network: { policy: "none" } } as const;

describe("the exact field list", () => {
  it("names only fields Kubernetes has, each under the schema that defines it", () => {
    const pairs = [POD_FIELDS, NETWORK_POLICY_FIELDS, PROXY_POD_FIELDS, SERVICE_FIELDS, PROXY_NETWORK_POLICY_FIELDS].flatMap(fieldsUnder);
    expect(pairs.length).toBeGreaterThan(60);
    const missing = pairs.filter(([schema, field]) => {
      const source = schemaSource(schema);
      // apiVersion and kind are type metadata, which the models check by class, not by schema property.
      return !(source.includes(`data.${field}`) || source.includes(`"${field}"`) || ["apiVersion", "kind"].includes(field));
    });
    expect(missing).toEqual([]);
  });

  it("finds a misspelt field, a field outside the list, and a wrong kind of value, by path", () => {
    const pod = renderPod(specFor({ image: "a:1", user: "10002:10002" }, seeded(2), 0), OPTIONS);
    const container = pod.spec?.containers[0];
    const probe = {
      ...pod,
      spec: {
        ...pod.spec,
        hostUsers: true,
        volumes: [{ name: "root", hostPath: { path: "/" } }],
        containers: [{ ...container, securityContext: { ...container?.securityContext, readOnlyRootFS: true }, resources: { limits: { memory: 5 } } }],
      },
    };
    expect(unknownFields(probe, POD_FIELDS).sort()).toEqual([
      "spec.containers.0.resources.limits",
      "spec.containers.0.securityContext.readOnlyRootFS",
      "spec.hostUsers",
      "spec.volumes.0.hostPath",
    ]);
    expect(() => validatedPod(probe as typeof pod)).toThrow(KubernetesError);
    expect(() => validatedPod(probe as typeof pod)).toThrow(/holds field\(s\) \[.*"spec.hostUsers"/);
  });

  it("passes what kubernetes-models refuses on to a refusal too: a type the schema does not take", () => {
    const policy = renderNetworkPolicy(specFor({ image: "a:1", user: "10002:10002" }, seeded(3), 0), OPTIONS);
    const broken = { ...policy, spec: { ...policy.spec, policyTypes: ["Sideways"] } };
    expect(() => validatedNetworkPolicy(broken as typeof policy)).toThrow(/breaks Kubernetes' schema/);
  });
});
