// compose.yaml as the operator's engine reads it: resolved by the real docker-compose 1.29 (so it
// also proves v1 parses it) and read as YAML. One service holds the docker socket; agents reach
// only the egress proxy, which holds no key in the file and sits on a way out the orchestrator is not on; the Staging Directory keeps its host path; no secret or
// secret default lives in the file, and .env.example documents what it reads. Starts nothing.

import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { COMPOSE_FILE, dockerCompose, ENGINES_COMPOSE_FILE, NO_SECRET_FILE, REPO } from "./docker-compose.js";

type Mount = string | { readonly source?: string; readonly target?: string };
type Service = {
  readonly image?: string;
  readonly build?: string | { readonly context?: string; readonly args?: Record<string, string> };
  readonly volumes?: readonly Mount[];
  readonly networks?: readonly string[] | Readonly<Record<string, unknown>>;
  readonly network_mode?: string;
  readonly environment?: Readonly<Record<string, string>>;
  readonly ports?: ReadonlyArray<string | Readonly<Record<string, unknown>>>;
  readonly privileged?: boolean;
  readonly read_only?: boolean;
  readonly cap_drop?: readonly string[];
  readonly security_opt?: readonly string[];
  readonly group_add?: readonly (string | number)[];
};
type ComposeFile = {
  readonly version?: unknown;
  readonly services: Readonly<Record<string, Service>>;
  readonly networks?: Readonly<
    Record<string, { readonly name?: string; readonly external?: unknown; readonly internal?: unknown; readonly driver_opts?: Record<string, string> } | null>
  >;
  readonly secrets?: Readonly<Record<string, { readonly file?: string }>>;
};

const SOCKET = "/var/run/docker.sock";
/** A variable holding a credential or the token, by its name. */
const SECRET_NAME = /TOKEN|KEY|SECRET|PASSWORD|CREDENTIAL/;
const REQUIRED = { DOCKER_GID: "4242", AGENTCAGE_RUNTIME_DIR: "/srv/agentcage-compose-test" } as const;

const raw = readFileSync(COMPOSE_FILE, "utf8");
const source = parse(raw) as ComposeFile;
const scratch = mkdtempSync(join(tmpdir(), "agentcage-compose-config-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let envFiles = 0;
/** compose.yaml as docker-compose resolves it with exactly these variables. */
function resolved(variables: Readonly<Record<string, string>>, overrides: readonly string[] = []): ComposeFile {
  const envFile = join(scratch, `env-${envFiles++}`);
  writeFileSync(
    envFile,
    Object.entries(variables)
      .map(([name, value]) => `${name}=${value}\n`)
      .join(""),
  );
  return parse(dockerCompose({ envFile, project: "agentcage-config-test", overrides }, "config")) as ComposeFile;
}

function mountsOf(service: Service): Array<{ source: string; target: string }> {
  return (service.volumes ?? []).map((mount) => {
    if (typeof mount !== "string") return { source: mount.source ?? "", target: mount.target ?? "" };
    const [from = "", to = ""] = mount.split(":");
    return { source: from, target: to };
  });
}

function networksOf(service: Service): string[] {
  const networks = service.networks ?? [];
  return Array.isArray(networks) ? [...(networks as string[])] : Object.keys(networks);
}

/** Every `${NAME...}` in the file: the name, the operator (`:-`, `-`, `:?`, `?`) and what follows it. */
function interpolations(text: string): Array<{ name: string; operator: string; rest: string }> {
  return [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g)].map((m) => ({
    name: m[1] as string,
    operator: m[2] ?? "",
    rest: m[3] ?? "",
  }));
}

/** Whether a service mounts an engine socket: by its target, or by a source naming docker.sock (interpolated or not). */
const holdsSocket = (service: Service): boolean =>
  (service.volumes ?? []).some((mount) =>
    typeof mount === "string" ? mount.includes("docker.sock") : mount.target === SOCKET || (mount.source ?? "").includes("docker.sock"),
  );

describe("compose.yaml", () => {
  it("has no version key, so Compose v1 and v2 both read it as the Compose Specification", () => {
    expect(Object.keys(source)).not.toContain("version");
    expect(raw).not.toMatch(/^version\s*:/m);
  });

  it("is read by docker-compose 1.29, which refuses it without DOCKER_GID or AGENTCAGE_RUNTIME_DIR", () => {
    expect(Object.keys(resolved(REQUIRED).services).sort()).toEqual(["agent-image", "egress", "orchestrator"]);
    expect(() => resolved({ AGENTCAGE_RUNTIME_DIR: REQUIRED.AGENTCAGE_RUNTIME_DIR })).toThrow(/set DOCKER_GID in \.env/);
    expect(() => resolved({ DOCKER_GID: REQUIRED.DOCKER_GID })).toThrow(/set AGENTCAGE_RUNTIME_DIR in \.env/);
  });

  it("mounts the docker socket into exactly one service, the orchestrator, which runs locked down", () => {
    const config = resolved(REQUIRED);
    expect(
      Object.entries(config.services)
        .filter(([, service]) => holdsSocket(service))
        .map(([name]) => name),
    ).toEqual(["orchestrator"]);
    expect(
      Object.entries(source.services)
        .filter(([, service]) => holdsSocket(service))
        .map(([name]) => name),
    ).toEqual(["orchestrator"]);
    const orchestrator = config.services["orchestrator"] as Service;
    expect(orchestrator.group_add?.map(String)).toEqual([REQUIRED.DOCKER_GID]);
    expect(orchestrator).toMatchObject({ read_only: true, cap_drop: ["ALL"], security_opt: ["no-new-privileges:true"] });
    expect(orchestrator.privileged).toBeUndefined();
    expect(orchestrator.network_mode).toBeUndefined();
  });

  it("puts agents behind the egress proxy by default, which holds no key and no socket, on a way out the orchestrator is not on", () => {
    for (const variables of [REQUIRED, { ...REQUIRED, AGENTCAGE_EGRESS_CONTAINER: "egress-of-this-test", AGENTCAGE_NETWORK_POLICY: "allowlist" }]) {
      const config = resolved(variables);
      const orchestrator = config.services["orchestrator"] as Service & { depends_on?: unknown };
      const egress = config.services["egress"] as Service & { container_name?: string; healthcheck?: unknown };
      const environment = orchestrator.environment ?? {};
      expect(environment["AGENTCAGE_NETWORK_POLICY"]).toBe("AGENTCAGE_NETWORK_POLICY" in variables ? "allowlist" : "model");
      // No name fixed across projects: serve finds its own project's proxy by the compose labels,
      // unless the Operator names another.
      expect(egress.container_name).toBeUndefined();
      expect(environment["AGENTCAGE_EGRESS_CONTAINER"]).toBe("AGENTCAGE_EGRESS_CONTAINER" in variables ? "egress-of-this-test" : "");
      // The control socket and secret on a volume only the two of them mount.
      const control = (service: Service) => mountsOf(service).filter((m) => m.target === "/run/agentcage");
      expect(control(orchestrator)).toEqual([{ source: "egress-control", target: "/run/agentcage" }]);
      expect(control(egress)).toEqual([{ source: "egress-control", target: "/run/agentcage" }]);
      expect(environment["AGENTCAGE_EGRESS_CONTROL_SOCKET"]).toBe(egress.environment?.["AGENTCAGE_EGRESS_CONTROL_SOCKET"]);
      expect(environment["AGENTCAGE_EGRESS_CONTROL_SECRET_FILE"]).toBe(egress.environment?.["AGENTCAGE_EGRESS_CONTROL_SECRET_FILE"]);
      // The proxy: locked down, no socket, no key in its environment (each Run's arrives over the control socket).
      expect(holdsSocket(egress)).toBe(false);
      expect(egress).toMatchObject({ read_only: true, cap_drop: ["ALL"], security_opt: ["no-new-privileges:true"] });
      expect(Object.keys(egress.environment ?? {}).filter((name) => SECRET_NAME.test(name) && !name.endsWith("_SECRET_FILE"))).toEqual([]);
      expect(egress.ports).toBeUndefined();
      // Its way out is its own: not the orchestrator's network, and the orchestrator is not on it.
      expect(networksOf(egress)).toEqual(["egress"]);
      expect(networksOf(orchestrator)).toEqual(["api"]);
      expect(config.networks?.["egress"]?.internal).toBeUndefined();
      // No network for agents is declared: serve makes one per Run, internal (test/deploy/compose.docker.test.ts looks at one).
      expect(Object.keys(config.networks ?? {}).sort()).toEqual(["api", "egress"]);
    }
  });

  it("names no container, network or volume outside its project, so two projects share nothing on one engine", () => {
    const config = resolved(REQUIRED) as ComposeFile & { volumes?: Readonly<Record<string, { name?: string } | null>> };
    for (const [name, service] of Object.entries(config.services))
      expect([name, (service as { container_name?: string }).container_name]).toEqual([name, undefined]);
    for (const [name, network] of Object.entries(config.networks ?? {}))
      expect([name, network?.name ?? `agentcage-config-test_${name}`]).toEqual([name, `agentcage-config-test_${name}`]);
    for (const [name, volume] of Object.entries(config.volumes ?? {}))
      expect([name, volume?.name ?? `agentcage-config-test_${name}`]).toEqual([name, `agentcage-config-test_${name}`]);
  });

  it("mounts the Staging Directory at the very path the engine resolves, and names it to the orchestrator", () => {
    const orchestrator = resolved(REQUIRED).services["orchestrator"] as Service;
    expect(mountsOf(orchestrator)).toContainEqual({ source: REQUIRED.AGENTCAGE_RUNTIME_DIR, target: REQUIRED.AGENTCAGE_RUNTIME_DIR });
    expect(orchestrator.environment?.["AGENTCAGE_RUNTIME_DIR"]).toBe(REQUIRED.AGENTCAGE_RUNTIME_DIR);
  });

  it("publishes the API on loopback by default, at the address and port .env names", () => {
    expect(resolved(REQUIRED).services["orchestrator"]?.ports).toEqual(["127.0.0.1:8750:8750/tcp"]);
    expect(resolved({ ...REQUIRED, AGENTCAGE_PORT: "18751", AGENTCAGE_BIND_ADDRESS: "0.0.0.0" }).services["orchestrator"]?.ports).toEqual([
      "0.0.0.0:18751:8750/tcp",
    ]);
  });

  it("builds the agent image that serve runs, from images/agent", () => {
    const builder = resolved(REQUIRED).services["agent-image"] as Service;
    expect(builder.image).toBe("agentcage-agent:latest");
    expect(builder.build).toMatchObject({ context: join(REPO, "images", "agent"), args: { BASE_IMAGE: "debian:bookworm-slim" } });
    expect(builder.network_mode).toBe("none");
  });

  it("holds no secret and no secret default: each comes from .env or a file .env names", () => {
    const secretVariables = interpolations(raw).filter(({ name }) => SECRET_NAME.test(name));
    expect(secretVariables.length).toBeGreaterThanOrEqual(10);
    for (const { name, operator, rest } of secretVariables) {
      if (operator.endsWith("-")) expect(`${name}=${rest}`).toBe(name.endsWith("_SECRET_FILE") ? `${name}=./images/orchestrator/no-secret` : `${name}=`);
    }
    for (const [name, value] of Object.entries(source.services["orchestrator"]?.environment ?? {})) {
      // A *_SECRET_FILE set in the file itself is a path inside the container (the egress proxy's control secret), not a secret.
      if (SECRET_NAME.test(name) && !(name.endsWith("_SECRET_FILE") && value.startsWith("/run/agentcage/"))) expect(value).toBe(`\${${name}:-}`);
    }
    // Nothing shaped like a key: an sk- prefix, or a run of 24 or more letters and digits mixing both.
    expect(raw).not.toMatch(/sk-[A-Za-z0-9]|(?=[A-Za-z0-9+/=]*[0-9])(?=[A-Za-z0-9+/=]*[a-z])[A-Za-z0-9+/=]{24,}/);

    // With nothing in .env, every secret is empty and every secret file the empty placeholder.
    const bare = resolved(REQUIRED);
    for (const [name, value] of Object.entries(bare.services["orchestrator"]?.environment ?? {})) {
      if (SECRET_NAME.test(name) && !value.startsWith("/run/agentcage/")) expect([name, value]).toEqual([name, ""]);
    }
    for (const secret of Object.values(bare.secrets ?? {})) expect(secret.file).toBe(NO_SECRET_FILE);
    expect(statSync(NO_SECRET_FILE).size).toBe(0);

    // What .env sets is what the orchestrator gets.
    const names = ["AGENTCAGE_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "CODEX_API_KEY"];
    const given = Object.fromEntries(
      names.flatMap((name) => [
        [name, `sentinel-${name.toLowerCase()}`],
        [`${name}_SECRET_FILE`, `/run/test/${name.toLowerCase()}`],
      ]),
    );
    const full = resolved({ ...REQUIRED, ...given });
    for (const name of names) {
      expect(full.services["orchestrator"]?.environment?.[name]).toBe(`sentinel-${name.toLowerCase()}`);
      expect(full.secrets?.[name === "AGENTCAGE_TOKEN" ? "agentcage_token" : name.toLowerCase()]?.file).toBe(`/run/test/${name.toLowerCase()}`);
    }
  });

  it("has .env.example document every variable it and compose.engines.yaml read, with no value for a secret", () => {
    const example = readFileSync(join(REPO, ".env.example"), "utf8");
    const documented = new Set([...example.matchAll(/^#? ?([A-Z_][A-Z0-9_]*)=/gm)].map((m) => m[1]));
    for (const { name } of interpolations(raw + readFileSync(ENGINES_COMPOSE_FILE, "utf8"))) expect([name, documented.has(name)]).toEqual([name, true]);
    for (const [, name, value] of example.matchAll(/^([A-Z_][A-Z0-9_]*)=(.*)$/gm)) {
      if (SECRET_NAME.test(name as string) && !(name as string).endsWith("_SECRET_FILE")) expect([name, value]).toEqual([name, ""]);
    }
  });
});

describe("compose.engines.yaml, laid over compose.yaml for several engines", () => {
  const ENGINES = "local,name=here tcp://10.0.0.5:2376,name=b,certs=/etc/agentcage/engines/b";

  it("is refused by docker-compose without AGENTCAGE_ENGINES, saying what to set", () => {
    expect(() => resolved(REQUIRED, [ENGINES_COMPOSE_FILE])).toThrow(/set AGENTCAGE_ENGINES in \.env/);
  });

  it("hands serve the engines and no Operator's proxy, so serve starts one on each engine", () => {
    const orchestrator = resolved({ ...REQUIRED, AGENTCAGE_ENGINES: ENGINES }, [ENGINES_COMPOSE_FILE]).services["orchestrator"] as Service;
    expect(orchestrator.environment).toMatchObject({
      AGENTCAGE_ENGINES: ENGINES,
      AGENTCAGE_EGRESS_CONTROL_SOCKET: "",
      AGENTCAGE_EGRESS_CONTROL_SECRET_FILE: "",
    });
    // Everything else of the orchestrator is compose.yaml's: locked down, the one socket holder.
    expect(orchestrator).toMatchObject({ read_only: true, cap_drop: ["ALL"], security_opt: ["no-new-privileges:true"] });
    expect(holdsSocket(orchestrator)).toBe(true);
  });

  it("mounts the engines' certificates read-only, an empty directory of the repository when none is named", () => {
    const certs = (variables: Readonly<Record<string, string>>) =>
      ((resolved({ ...REQUIRED, AGENTCAGE_ENGINES: ENGINES, ...variables }, [ENGINES_COMPOSE_FILE]).services["orchestrator"] as Service).volumes ?? [])
        .map((mount) =>
          typeof mount === "string" ? mount : `${mount.source}:${mount.target}:${(mount as { read_only?: boolean }).read_only === true ? "ro" : "rw"}`,
        )
        .filter((mount) => mount.includes(":/etc/agentcage/engines"));
    expect(certs({})).toEqual([`${join(REPO, "images", "orchestrator", "no-engine-certs")}:/etc/agentcage/engines:ro`]);
    expect(statSync(join(REPO, "images", "orchestrator", "no-engine-certs")).isDirectory()).toBe(true);
    expect(certs({ AGENTCAGE_ENGINE_CERTS: "/etc/engine-certs" })).toEqual(["/etc/engine-certs:/etc/agentcage/engines:ro"]);
  });
});
