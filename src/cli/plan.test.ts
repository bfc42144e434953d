// The words `agentcage plan` prints: bare where no character is special to a shell, single-quoted
// where one is, and read back by a shell as the very words they were.

import { parse } from "shell-quote";
import { describe, expect, it } from "vitest";
import { shellWords } from "./plan.js";

describe("shellWords", () => {
  it("leaves words bare that no shell treats specially, and quotes the rest", () => {
    const words = ["docker", "run", "--tmpfs", "/tmp:rw,nosuid,size=1", "--label", "agentcage.run=ab12", "it's", "a b", "$HOME", "*", "", "~"];
    expect(shellWords(words)).toBe(`docker run --tmpfs /tmp:rw,nosuid,size=1 --label agentcage.run=ab12 'it'\\''s' 'a b' '$HOME' '*' '' '~'`);
    expect(parse(shellWords(words), {})).toEqual(words);
  });
});
