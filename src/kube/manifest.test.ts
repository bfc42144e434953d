// The printed manifest: one v1 List holding the NetworkPolicy first (so the Pod never runs unfenced
// under `kubectl apply`) and the Pod, as JSON that reads back to exactly the rendered objects.
import { describe, expect, it } from "vitest";
import { seeded, specFor } from "../../test/support/kube-specs.js";
import { manifestJson, renderPodManifest } from "./index.js";

describe("the manifest a user can check", () => {
  it("is a v1 List of the NetworkPolicy then the Pod, reading back to what was rendered", () => {
    const spec = specFor({ image: "agent:1", user: "10002:10002", env: { API_KEY: "sk-secret-value-12345" } }, seeded(5), 0);
    const manifest = renderPodManifest(spec, { outBytes: 1024 * 1024, network: { policy: "none" } });
    const text = manifestJson(manifest);
    expect(JSON.parse(text)).toEqual({ apiVersion: "v1", kind: "List", items: [manifest.networkPolicy, manifest.pod] });
    expect(text).not.toContain("sk-secret-value-12345");
    expect(text.endsWith("}\n")).toBe(true);
  });
});
