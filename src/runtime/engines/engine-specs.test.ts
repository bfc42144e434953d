import { describe, expect, it } from "vitest";
import { engineSetOf, parseEngineSpec } from "./engine-specs.js";

describe("an engine as an Operator writes it", () => {
  it("reads the address, its name, its slots and its certificates' directory", () => {
    expect(parseEngineSpec("tcp://10.0.0.5:2376,name=b,slots=4,certs=/etc/agentcage/b", "--engine")).toEqual({
      address: { kind: "tcp", host: "10.0.0.5", port: 2376, certs: "/etc/agentcage/b" },
      name: "b",
      slots: 4,
    });
    expect(parseEngineSpec("local", "--engine", 2)).toEqual({ address: { kind: "local" }, name: "engine-3" });
  });

  it("refuses what cannot mean anything, naming the parameter and quoting the value", () => {
    expect(() => parseEngineSpec("local,size=3", "--engine")).toThrow(
      '--engine "local,size=3" has "size=3", which is not one of name=, slots=, certs=; write ADDRESS[,name=NAME][,slots=N][,certs=DIR]',
    );
    expect(() => parseEngineSpec("local,slots=0", "--engine")).toThrow(
      '--engine "local,slots=0" has slots=0; write a whole number of Runs at once on it, from 1 to',
    );
    expect(() => parseEngineSpec("local,name=a,name=b", "--engine")).toThrow("gives name= twice; give it once");
    expect(() => parseEngineSpec("tcp://h", "--engine")).toThrow('--engine "tcp://h" cannot be read: --engine "tcp://h" needs a host and a port');
    expect(() => parseEngineSpec("", "AGENTCAGE_ENGINES")).toThrow('AGENTCAGE_ENGINES "" is empty; write an engine\'s address');
    expect(() => engineSetOf(["tcp://10.0.0.5:2376,certs=/nonexistent-certs"], "--engine")).toThrow(
      '--engine engine "engine-1": the engine\'s TLS client certificates directory "/nonexistent-certs" has no readable ca.pem (ENOENT); put ca.pem, cert.pem and key.pem there',
    );
    expect(() => engineSetOf(["local,name=a", "local,name=a"], "--engine")).toThrow('--engine[1].name "a" is taken by an earlier engine');
  });
});
