// The Docker API's own words read as facts: the /version and /info of Debian's docker.io 20.10
// (trimmed to the fields read), a Docker Desktop naming itself, an engine that leaves fields out,
// and a container's stats while it runs and after it stopped.

import { describe, expect, it } from "vitest";
import { containerMountsOf, cpuNanosOf, engineFactsOf, imageFactsOf } from "./docker-facts.js";

const DEBIAN_VERSION = {
  Platform: { Name: "" },
  Components: [
    { Name: "Engine", Version: "20.10.24+dfsg1", Details: { ApiVersion: "1.41", Arch: "amd64", GitCommit: "5d6db84", Os: "linux" } },
    { Name: "containerd", Version: "1.6.20~ds1", Details: { GitCommit: "1.6.20~ds1-1+deb12u3" } },
    { Name: "runc", Version: "1.1.5+ds1", Details: { GitCommit: "1.1.5+ds1-1+deb12u1" } },
    { Name: "docker-init", Version: "0.19.0", Details: { GitCommit: "" } },
  ],
  Version: "20.10.24+dfsg1",
  ApiVersion: "1.41",
  Os: "linux",
  Arch: "amd64",
  KernelVersion: "6.1.0-21-amd64",
};
const DEBIAN_INFO = {
  Runtimes: { "io.containerd.runc.v2": { path: "runc" }, "io.containerd.runtime.v1.linux": { path: "runc" }, runc: { path: "runc" } },
  DefaultRuntime: "runc",
  OperatingSystem: "Debian GNU/Linux 12 (bookworm)",
  OSType: "linux",
  SecurityOptions: ["name=seccomp,profile=default"],
  CgroupVersion: "1",
  ServerVersion: "20.10.24+dfsg1",
};

describe("engineFactsOf", () => {
  it("reads Debian's docker.io 20.10: its version, runtimes and components with their package versions", () => {
    expect(engineFactsOf(DEBIAN_VERSION, DEBIAN_INFO)).toEqual({
      name: "Docker Engine",
      serverVersion: "20.10.24+dfsg1",
      apiVersion: "1.41",
      os: "linux",
      arch: "amd64",
      kernelVersion: "6.1.0-21-amd64",
      operatingSystem: "Debian GNU/Linux 12 (bookworm)",
      defaultRuntime: "runc",
      runtimes: [
        { name: "io.containerd.runc.v2", path: "runc" },
        { name: "io.containerd.runtime.v1.linux", path: "runc" },
        { name: "runc", path: "runc" },
      ],
      components: [
        { name: "Engine", version: "20.10.24+dfsg1", detail: "5d6db84" },
        { name: "containerd", version: "1.6.20~ds1", detail: "1.6.20~ds1-1+deb12u3" },
        { name: "runc", version: "1.1.5+ds1", detail: "1.1.5+ds1-1+deb12u1" },
        { name: "docker-init", version: "0.19.0", detail: "" },
      ],
      securityOptions: ["name=seccomp,profile=default"],
      cgroupVersion: "1",
    });
  });

  it("takes the platform's own name when it gives one", () => {
    expect(engineFactsOf({ ...DEBIAN_VERSION, Platform: { Name: "Docker Desktop 4.30.0 (149282)" } }, DEBIAN_INFO).name).toBe("Docker Desktop 4.30.0 (149282)");
    expect(engineFactsOf({ Components: [{ Name: "Podman Engine", Version: "4.3.1" }] }, {}).name).toBe("Podman Engine");
  });

  it("leaves out what an engine does not say, and never throws on a body of the wrong shape", () => {
    expect(engineFactsOf({}, { ServerVersion: "4.3.1", Runtimes: { crun: {} } })).toEqual({
      name: "Engine",
      serverVersion: "4.3.1",
      apiVersion: "",
      os: "",
      arch: "",
      kernelVersion: "",
      operatingSystem: "",
      defaultRuntime: "",
      runtimes: [{ name: "crun" }],
      components: [],
      securityOptions: [],
      cgroupVersion: "",
    });
    expect(() => engineFactsOf(null, "nonsense")).not.toThrow();
    expect(engineFactsOf({ Components: "x" }, { Runtimes: [1] }).components).toEqual([]);
  });
});

describe("imageFactsOf and containerMountsOf", () => {
  it("read an image's id, build time, platform and labels", () => {
    expect(imageFactsOf({ Id: "sha256:98", Created: "2025-11-30T16:51:15Z", Os: "linux", Architecture: "amd64", Config: { Labels: null } })).toEqual({
      id: "sha256:98",
      created: "2025-11-30T16:51:15Z",
      os: "linux",
      arch: "amd64",
      labels: {},
    });
  });

  it("read a container's mounts, the host's source beside the container's destination", () => {
    expect(
      containerMountsOf({
        Mounts: [
          { Type: "bind", Source: "/srv/agentcage", Destination: "/var/lib/agentcage", RW: true },
          { Type: "bind", Source: "/var/run/docker.sock", Destination: "/var/run/docker.sock", RW: false },
        ],
      }),
    ).toEqual([
      { source: "/srv/agentcage", destination: "/var/lib/agentcage", readOnly: false },
      { source: "/var/run/docker.sock", destination: "/var/run/docker.sock", readOnly: true },
    ]);
  });
});

describe("cpuNanosOf", () => {
  it("reads the cumulative CPU time of a running container, in nanoseconds", () => {
    const running = { read: "2025-01-02T03:04:05.6Z", cpu_stats: { cpu_usage: { total_usage: 17_555_991, usage_in_usermode: 10_000_000 }, online_cpus: 2 } };
    expect(cpuNanosOf(running)).toBe(17_555_991);
  });

  it("reads nothing from the zero reading docker.io 20.10 answers for a stopped container, or from a body of the wrong shape", () => {
    const stopped = { read: "0001-01-01T00:00:00Z", cpu_stats: { cpu_usage: { total_usage: 0, usage_in_kernelmode: 0, usage_in_usermode: 0 } } };
    expect(cpuNanosOf(stopped)).toBeUndefined();
    expect(cpuNanosOf({})).toBeUndefined();
    expect(cpuNanosOf(null)).toBeUndefined();
    expect(cpuNanosOf({ cpu_stats: { cpu_usage: { total_usage: "12" } } })).toBeUndefined();
  });
});
