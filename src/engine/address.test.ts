import { describe, expect, it } from "vitest";
import { describeEngineAddress, parseEngineAddress } from "./address.js";

describe("an engine's address", () => {
  it("reads a socket path, unix://, tcp:// with its certificates, ssh:// and local", () => {
    expect(parseEngineAddress("/var/run/docker.sock", "--engine")).toEqual({ kind: "socket", path: "/var/run/docker.sock" });
    expect(parseEngineAddress("unix:///run/d.sock", "--engine")).toEqual({ kind: "socket", path: "/run/d.sock" });
    expect(parseEngineAddress("tcp://10.0.0.5:2376", "--engine", "/etc/certs")).toEqual({ kind: "tcp", host: "10.0.0.5", port: 2376, certs: "/etc/certs" });
    expect(parseEngineAddress("ssh://agent@build-2", "--engine")).toEqual({ kind: "ssh", user: "agent", host: "build-2", port: 22 });
    expect(parseEngineAddress("local", "--engine")).toEqual({ kind: "local" });
    expect(describeEngineAddress(parseEngineAddress("ssh://agent@build-2:2222", "--engine"))).toBe("ssh://agent@build-2:2222");
  });

  it("refuses what it cannot read, naming the parameter, quoting the value and saying what to write", () => {
    const forms = "write a socket path (/var/run/docker.sock or unix:///var/run/docker.sock), tcp://host:2376, ssh://user@host, or local";
    expect(() => parseEngineAddress("tcp://10.0.0.5", "--engine")).toThrow(
      `--engine "tcp://10.0.0.5" needs a host and a port, as in tcp://10.0.0.5:2376; ${forms}`,
    );
    expect(() => parseEngineAddress("http://h:1", "--engine")).toThrow('--engine "http://h:1" has the scheme "http:", which is not one of unix, tcp, ssh');
    expect(() => parseEngineAddress("ssh://host", "--engine")).toThrow('--engine "ssh://host" needs a user and a host');
    expect(() => parseEngineAddress("unix://run/d.sock", "--engine")).toThrow("does not name an absolute socket path");
    expect(() => parseEngineAddress("docker.sock", "--engine")).toThrow('--engine "docker.sock" is not an engine address');
    expect(() => parseEngineAddress("/run/d.sock", "--engine", "/certs")).toThrow("is not a tcp:// address, so it takes no certs directory");
    expect(() => parseEngineAddress("tcp://h:2376", "--engine", "certs")).toThrow('has certs "certs", which is not an absolute directory');
  });
});
