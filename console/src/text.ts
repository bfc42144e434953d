// How the console shows text it did not write (a prompt, what an agent printed, a file's name):
// always as text (Preact escapes it), and with what could drive a terminal or reorder the page's
// letters written out, so an agent that read hostile input can neither run script nor spoof a line.

// C0 controls but tab and newline, DEL, C1 controls (ANSI's CSI among them).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// Bidirectional overrides, embeddings and isolates, and the marks: what makes "exe.txt" read "txt.exe".
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The text with its control characters as `\x1b` and its bidi controls as `\u{202e}`. */
export function shown(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`).replace(BIDI, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
}

/**
 * A unified diff with each line as shown: every line keeps its prefix and its place (a CRLF line end
 * is a line end; a lone carriage return is written out, not a line break), so a renderer of diffs
 * reads the same lines and prints none of these characters raw.
 */
export function shownPatch(patch: string): string {
  return patch
    .split("\n")
    .map((line) => shown(line.endsWith("\r") ? line.slice(0, -1) : line))
    .join("\n");
}

/** At most `max` characters of the text as shown, with an ellipsis when cut. */
export function shortened(text: string, max: number): string {
  const whole = shown(text);
  return whole.length <= max ? whole : `${whole.slice(0, max - 1)}…`;
}
