import { describe, expect, it } from "vitest";
import { mountArguments, mountSpecs, MountTableError, validateMountTable, type Mount, type MountSpec, type MountTable } from "./index.js";

const RUN_DIR = "/srv/agentcage/run-1";

function table(entries: readonly Mount[], runtimeDir = RUN_DIR): MountTable {
  return { runtimeDir, entries };
}

describe("mountArguments", () => {
  it("renders one --mount pair per entry, in declaration order", () => {
    expect(
      mountArguments(
        table([
          { agentPath: "/work", path: "work" },
          { agentPath: "/work/config.json", path: "config.json", readOnly: true },
          { agentPath: "/out", path: "out", readOnly: false },
        ]),
      ),
    ).toEqual([
      "--mount",
      `type=bind,source=${RUN_DIR}/work,target=/work`,
      "--mount",
      `type=bind,source=${RUN_DIR}/config.json,target=/work/config.json,readonly`,
      "--mount",
      `type=bind,source=${RUN_DIR}/out,target=/out`,
    ]);
  });

  it("renders nothing for an empty table", () => {
    expect(mountArguments(table([]))).toEqual([]);
  });

  it('binds the Staging Directory itself for path ""', () => {
    expect(mountArguments(table([{ agentPath: "/work", path: "" }], `${RUN_DIR}/`))).toEqual(["--mount", `type=bind,source=${RUN_DIR},target=/work`]);
  });

  it('joins against a runtimeDir of "/"', () => {
    expect(
      mountArguments(
        table(
          [
            { agentPath: "/x", path: "x" },
            { agentPath: "/root-dir", path: "", readOnly: true },
          ],
          "/",
        ),
      ),
    ).toEqual(["--mount", "type=bind,source=/x,target=/x", "--mount", "type=bind,source=/,target=/root-dir,readonly"]);
  });

  it("normalizes trailing and repeated slashes", () => {
    expect(mountArguments(table([{ agentPath: "//work///sub/", path: "work//sub/" }], "/srv//run/"))).toEqual([
      "--mount",
      "type=bind,source=/srv/run/work/sub,target=/work/sub",
    ]);
  });

  it("CSV-quotes a field that holds a comma", () => {
    expect(mountArguments(table([{ agentPath: "/in,put", path: "a,b", readOnly: true }]))).toEqual([
      "--mount",
      `type=bind,"source=${RUN_DIR}/a,b","target=/in,put",readonly`,
    ]);
  });

  it("CSV-quotes a field that holds a double quote, doubling it", () => {
    expect(mountArguments(table([{ agentPath: "/in", path: 'say "hi"' }]))).toEqual(["--mount", `type=bind,"source=${RUN_DIR}/say ""hi""",target=/in`]);
  });

  it("CSV-quotes a field that holds a line break, so readonly is not cut off", () => {
    expect(mountArguments(table([{ agentPath: "/in\nx", path: "in", readOnly: true }]))).toEqual([
      "--mount",
      `type=bind,source=${RUN_DIR}/in,"target=/in\nx",readonly`,
    ]);
  });
});

describe("mountSpecs", () => {
  it("renders the Engine API form of the same binds", () => {
    expect(
      mountSpecs(
        table([
          { agentPath: "/work/", path: "work" },
          { agentPath: "/work/config.json", path: "config.json", readOnly: true },
        ]),
      ),
    ).toEqual([
      { Type: "bind", Source: `${RUN_DIR}/work`, Target: "/work", ReadOnly: false },
      { Type: "bind", Source: `${RUN_DIR}/config.json`, Target: "/work/config.json", ReadOnly: true },
    ]);
  });

  it.each([
    [
      "several entries",
      table([
        { agentPath: "/work", path: "work" },
        { agentPath: "/in", path: "in", readOnly: true },
      ]),
    ],
    [
      "a runtimeDir of /",
      table(
        [
          { agentPath: "/x", path: "x" },
          { agentPath: "/all", path: "" },
        ],
        "/",
      ),
    ],
    ["slashes to normalize", table([{ agentPath: "//work/", path: "a//b/" }], "/srv//run/")],
    ["a comma and a quote", table([{ agentPath: "/in,put", path: 'say "hi", twice', readOnly: true }])],
  ])("agrees with mountArguments for %s", (_name, mounts) => {
    expect(specsFromArguments(mountArguments(mounts))).toEqual(mountSpecs(mounts));
  });

  it("refuses what mountArguments refuses", () => {
    expect(() => mountSpecs(table([{ agentPath: "work", path: "work" }]))).toThrow(MountTableError);
  });
});

describe("validateMountTable", () => {
  it.each([
    ["a relative runtimeDir", table([], "srv/run"), "srv/run", "absolute host path"],
    ["an empty runtimeDir", table([], ""), "", "absolute host path"],
    ["a runtimeDir with a .. segment", table([], "/srv/../etc"), "/srv/../etc", "without them"],
    ["a runtimeDir with a . segment", table([], "/srv/./run"), "/srv/./run", "without them"],
    ["a relative agentPath", table([{ agentPath: "work", path: "w" }]), "work", 'starting with "/"'],
    ["an agentPath with a .. segment", table([{ agentPath: "/work/../etc", path: "w" }]), "/work/../etc", "without them"],
    ["an agentPath with a . segment", table([{ agentPath: "/work/.", path: "w" }]), "/work/.", "without them"],
    ["an empty agentPath", table([{ agentPath: "", path: "w" }]), "", "absolute path the agent sees"],
    ["an agentPath of the container's root", table([{ agentPath: "//", path: "w" }]), "//", "below it"],
    ["a path with a leading /", table([{ agentPath: "/w", path: "/etc" }]), "/etc", "write it relative to the Staging Directory"],
    ["a path with a .. segment", table([{ agentPath: "/w", path: "work/../../etc" }]), "work/../../etc", "without them"],
    ["a path with a . segment", table([{ agentPath: "/w", path: "work/./x" }]), "work/./x", "without them"],
    ["a path of .", table([{ agentPath: "/w", path: "." }]), ".", 'or "" for the directory itself'],
    ["a NUL byte in runtimeDir", table([], "/srv\0/run"), "/srv\0/run", "without it"],
    ["a NUL byte in agentPath", table([{ agentPath: "/w\0", path: "w" }]), "/w\0", "without it"],
    ["a NUL byte in path", table([{ agentPath: "/w", path: "w\0" }]), "w\0", "without it"],
  ])("refuses %s, quoting it", (_name, mounts, value, advice) => {
    const error = refusalOf(mounts);
    expect(error.message).toContain(JSON.stringify(value));
    expect(error.message).toContain(advice);
  });

  it("names the entry it refuses", () => {
    const mounts = table([
      { agentPath: "/ok", path: "ok" },
      { agentPath: "bad", path: "bad" },
    ]);
    expect(refusalOf(mounts).message).toBe(
      'entries[1].agentPath "bad" is not absolute; write the path the agent sees inside its container, starting with "/".',
    );
  });

  it("refuses two entries naming one target after normalizing slashes, quoting both indexes", () => {
    const mounts = table([
      { agentPath: "/work", path: "a" },
      { agentPath: "/in", path: "in" },
      { agentPath: "//work//", path: "b", readOnly: true },
    ]);
    expect(refusalOf(mounts).message).toBe('entries[0] and entries[2] both target "/work"; keep one entry per agentPath.');
  });

  it.each([
    ["an empty entries list", table([])],
    ["a runtimeDir of /", table([{ agentPath: "/w", path: "w" }], "/")],
    ['path "" for the directory itself', table([{ agentPath: "/w", path: "" }])],
    ["dotted names", table([{ agentPath: "/..hidden/.config", path: "..hidden/.config/a..b..." }], "/srv/.run")],
    [
      "a read-only file inside a read-write directory",
      table([
        { agentPath: "/work", path: "work" },
        { agentPath: "/work/config.json", path: "config.json", readOnly: true },
      ]),
    ],
    ["trailing and repeated slashes", table([{ agentPath: "/work//in/", path: "a//b/" }], "/srv//run/")],
  ])("allows %s", (_name, mounts) => {
    expect(() => validateMountTable(mounts)).not.toThrow();
  });
});

function refusalOf(mounts: MountTable): MountTableError {
  try {
    validateMountTable(mounts);
  } catch (error) {
    expect(error).toBeInstanceOf(MountTableError);
    expect((error as MountTableError).name).toBe("MountTableError");
    return error as MountTableError;
  }
  throw new Error("expected the Mount Table to be refused");
}

/** Reads `--mount` values back the way docker's parser does (CSV fields, then key=value). */
function specsFromArguments(args: readonly string[]): MountSpec[] {
  const specs: MountSpec[] = [];
  for (let i = 0; i < args.length; i += 2) {
    expect(args[i]).toBe("--mount");
    const fields = new Map(
      readCsvRecord(args[i + 1] ?? "").map((field) => {
        const [key = "", ...value] = field.split("=");
        return [key, value.join("=")] as const;
      }),
    );
    expect(fields.get("type")).toBe("bind");
    specs.push({
      Type: "bind",
      Source: fields.get("source") ?? "",
      Target: fields.get("target") ?? "",
      ReadOnly: fields.has("readonly"),
    });
  }
  return specs;
}

function readCsvRecord(line: string): string[] {
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quoted && char === '"' && line[i + 1] === '"') {
      field += '"';
      i++;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (char === "," && !quoted) {
      fields.push(field);
      field = "";
    } else {
      field += char;
    }
  }
  fields.push(field);
  return fields;
}
