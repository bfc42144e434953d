// Packs agentcage as `npm pack` would after its prepack (the library compiled, the stand-in server
// compiled, the lock copied to SHIPPED_LOCKFILE), and installs the tarball into a fresh project
// with no network. Invariant: the repository's own dist/ and dist-tools/ are never touched:
// everything is compiled into a copy.
// The consumer's lockfile is cut from the repository's, so npm needs only tarballs it has cached.

import { execFile } from "node:child_process";
import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { SHIPPED_LOCKFILE } from "../../src/testing/index.js";
import { scaledMs } from "../../src/liveness/index.js";

export type PackedFile = { readonly path: string; readonly size: number };
export type PackedPackage = { readonly tarball: string; readonly stageDir: string; readonly files: readonly PackedFile[] };

type PackageJson = {
  readonly name: string;
  readonly version: string;
  readonly license?: string;
  readonly files: readonly string[];
  readonly dependencies: Readonly<Record<string, string>>;
  readonly devDependencies: Readonly<Record<string, string>>;
  readonly engines?: Readonly<Record<string, string>>;
  readonly bin?: Readonly<Record<string, string>>;
};
type LockEntry = {
  readonly version?: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly dev?: boolean;
  readonly devOptional?: boolean;
};
type Lockfile = { readonly packages: Readonly<Record<string, LockEntry>> };

/** What a command of the package's build takes at most on an idle machine; the bound stretches with the load, as every watchdog does (slow is not dead). */
const COMMAND_IDLE_TIMEOUT_MS = 60_000;

/** Runs a command; rejects with the command, its exit and its stderr when it fails. */
export function run(
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv; readonly timeoutMs?: number },
): Promise<{ stdout: string; stderr: string }> {
  const settings = {
    cwd: options.cwd,
    env: options.env ?? quietNpmEnv(),
    timeout: options.timeoutMs ?? scaledMs(COMMAND_IDLE_TIMEOUT_MS),
    maxBuffer: 64 * 1024 * 1024,
  };
  return new Promise((resolve, reject) => {
    execFile(command, args, settings, (error, stdout, stderr) => {
      if (error === null) resolve({ stdout, stderr });
      else
        reject(new Error(`${[command, ...args].join(" ")} (in ${options.cwd}) failed (${error.code ?? error.signal ?? error.message}):\n${stderr}${stdout}`));
    });
  });
}

/** The environment without a parent npm's settings, and without npm's nagging. */
export function quietNpmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^npm_(config|package|lifecycle)_/i.test(name) || name.toLowerCase() === "npm_config_cache") env[name] = value;
  }
  return { ...env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" };
}

export async function readPackageJson(dir: string): Promise<PackageJson> {
  return JSON.parse(await readFile(path.join(dir, "package.json"), "utf8")) as PackageJson;
}

/** Copies what the package is made of into `stageDir`, compiles it there as prepack does, and packs it into `outDir`. */
export async function packPackage(repoRoot: string, stageDir: string, outDir: string): Promise<PackedPackage> {
  const pkg = await readPackageJson(repoRoot);
  await mkdir(stageDir, { recursive: true });
  for (const name of ["package.json", "README.md", "LICENSE", ...pkg.files.filter((entry) => !entry.startsWith("dist"))]) {
    if (existsSync(path.join(repoRoot, name))) await cp(path.join(repoRoot, name), path.join(stageDir, name), { recursive: true });
  }
  const tsc = path.join(repoRoot, "node_modules", ".bin", "tsc");
  // Each build's incremental record goes with its output, never into the repository's own dist/.
  await run(
    tsc,
    ["-p", "tsconfig.build.json", "--outDir", path.join(stageDir, "dist"), "--tsBuildInfoFile", path.join(stageDir, "dist", "tsconfig.build.tsbuildinfo")],
    { cwd: repoRoot },
  );
  await run(tsc, ["-p", "tsconfig.tools.json", "--outDir", path.join(stageDir, "dist-tools")], { cwd: repoRoot });
  // prepack's last step: npm packs no root package-lock.json, so the orchestrator's build reads this copy.
  await cp(path.join(repoRoot, "package-lock.json"), path.join(stageDir, SHIPPED_LOCKFILE));
  // What a developer's tree may hold beside the images and `files` must leave out: a CA bundle of
  // this machine. Removed once packed, so the stage holds what the tarball holds.
  const planted = ["agent", "orchestrator"].map((image) => path.join(stageDir, "images", image, "build-ca.crt"));
  for (const file of planted) await writeFile(file, "a CA bundle of this machine\n");
  const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", outDir], { cwd: stageDir });
  for (const file of planted) await rm(file);
  const [report] = JSON.parse(stdout) as [{ filename: string; files: PackedFile[] }];
  return { tarball: path.join(outDir, report.filename), stageDir, files: report.files.map(({ path, size }) => ({ path, size })) };
}

/**
 * Makes `projectDir` a project that depends on the tarball (and on dockerode and @types/node, as a
 * user passing their own Docker connection would), and installs it with no network: the lockfile
 * names every package at the version and integrity the repository's own lockfile pins.
 */
export async function installTarball(repoRoot: string, packed: PackedPackage, projectDir: string): Promise<void> {
  const pkg = await readPackageJson(packed.stageDir);
  const lock = JSON.parse(await readFile(path.join(repoRoot, "package-lock.json"), "utf8")) as Lockfile;
  const tarball = `file:${path.relative(projectDir, packed.tarball)}`;
  const dependencies = { agentcage: tarball, dockerode: pinned(pkg, "dockerode") };
  const devDependencies = { "@types/node": pinned(pkg, "@types/node") };
  const packages: Record<string, object> = {
    "": { name: "consumer", dependencies, devDependencies },
    "node_modules/agentcage": {
      version: pkg.version,
      resolved: tarball,
      ...(pkg.license === undefined ? {} : { license: pkg.license }),
      dependencies: pkg.dependencies,
      ...(pkg.bin === undefined ? {} : { bin: pkg.bin }),
      ...(pkg.engines === undefined ? {} : { engines: pkg.engines }),
    },
  };
  const wanted: Array<[string, string]> = [...Object.keys(pkg.dependencies), ...Object.keys(devDependencies)].map((name) => ["", name]);
  for (let next = wanted.pop(); next !== undefined; next = wanted.pop()) {
    const [from, name] = next;
    const at = locate(lock, from, name);
    if (at === undefined) throw new Error(`package-lock.json has no ${name} reachable from ${from || "the root"}; run npm install in the repository`);
    if (at in packages) continue;
    const { dev: _dev, devOptional: _devOptional, ...entry } = lock.packages[at] as LockEntry;
    packages[at] = entry;
    for (const dependency of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) wanted.push([at, dependency]);
  }
  await mkdir(projectDir, { recursive: true });
  await writeFile(path.join(projectDir, "package.json"), `${JSON.stringify({ name: "consumer", private: true, dependencies, devDependencies }, null, 2)}\n`);
  await writeFile(
    path.join(projectDir, "package-lock.json"),
    `${JSON.stringify({ name: "consumer", lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
  );
  const install = ["install", "--no-audit", "--no-fund", "--ignore-scripts"];
  try {
    await run("npm", [...install, "--offline"], { cwd: projectDir });
  } catch (error) {
    // A cache that lacks a tarball (a pruned npm cache): let npm fetch what it misses from its registry.
    if (!String(error).includes("ENOTCACHED")) throw error;
    await run("npm", [...install, "--prefer-offline"], { cwd: projectDir });
  }
}

/** The version the repository pins for `name`, as a dependency or a dev dependency. */
function pinned(pkg: PackageJson, name: string): string {
  const version = pkg.dependencies[name] ?? pkg.devDependencies[name];
  if (version === undefined) throw new Error(`package.json pins no ${name}`);
  return version;
}

/** Where node would find `name` from the package at `from`: its own node_modules, then each parent's. */
function locate(lock: Lockfile, from: string, name: string): string | undefined {
  for (let base = from; ; ) {
    const candidate = `${base === "" ? "" : `${base}/`}node_modules/${name}`;
    if (candidate in lock.packages) return candidate;
    if (base === "") return undefined;
    const parent = base.lastIndexOf("/node_modules/");
    base = parent < 0 ? "" : base.slice(0, parent);
  }
}
