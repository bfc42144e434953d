// Whether two paths name the same place or one lies inside the other once links are resolved: a
// destination reached through a link into the inputs is inside them, however it is written. A part
// of a path that does not exist yet is taken as written, after the links of the part that does.

import { realpath } from "node:fs/promises";
import path from "node:path";

/** `target` with every link in its existing part resolved; the rest, not there yet, as written. */
export async function canonicalPath(target: string): Promise<string> {
  const absolute = path.resolve(target);
  const missing: string[] = [];
  for (let existing = absolute; ; existing = path.dirname(existing)) {
    try {
      return path.join(await realpath(existing), ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Not there (or a dangling link, or a file on the way): look one level up.
      if ((code !== "ENOENT" && code !== "ENOTDIR") || existing === path.dirname(existing)) throw error;
      missing.push(path.basename(existing));
    }
  }
}

/** Whether `a` and `b`, links resolved, are the same or one lies inside the other. */
export async function pathsOverlap(a: string, b: string): Promise<boolean> {
  const [first, second] = await Promise.all([canonicalPath(a), canonicalPath(b)]);
  return overlapsAsWritten(first, second);
}

/** Whether `a` and `b`, resolved against the working directory but links not followed, are the same or one lies inside the other. */
export function overlapsAsWritten(a: string, b: string): boolean {
  const [first, second] = [path.resolve(a), path.resolve(b)];
  return within(first, second) || within(second, first);
}

/** Whether `inner` is `outer` or lies inside it, as written. */
function within(outer: string, inner: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}
