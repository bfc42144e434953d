// What the benches ask the engine through the `docker` command: one command's answer, and what a
// bench left behind (the containers and networks carrying any of its labels), counted at its end.

import { execFileSync } from "node:child_process";

export function docker(...args: string[]): string {
  return execFileSync("docker", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** The ids of the containers and networks labelled with any of `labels` (`key=value`), each once. */
export function leftoversLabelled(...labels: string[]): string[] {
  const lines = (text: string) => text.split("\n").filter((line) => line.length > 0);
  return [
    ...new Set(
      labels.flatMap((label) => [
        ...lines(docker("ps", "--all", "--quiet", "--filter", `label=${label}`)),
        ...lines(docker("network", "ls", "--quiet", "--filter", `label=${label}`)),
      ]),
    ),
  ];
}
