// What makes a line of a patch read differently from what applies (the "Trojan Source" class): a
// terminal's control characters and the bidirectional controls and marks. The one definition of
// what a change set's `bidiOrControl` lists; tab, newline and a carriage return that ends a line
// (CRLF) are text, a carriage return alone is not (a terminal writes what follows over the line).

/** The bidi embeddings, overrides, isolates and marks, as the inside of a regular expression's class. */
export const BIDI_CLASS = "\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069";

// C0 controls but tab, newline and CR; DEL; C1 controls (ANSI's CSI among them); the bidi
// characters; a CR not followed by a newline.
const BIDI_OR_CONTROL = new RegExp(`[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f${BIDI_CLASS}]|\\r(?!\\n)`);

/** Whether `text` holds a control or bidi character a reader of it would not see for what it is. */
export function holdsBidiOrControl(text: string): boolean {
  return BIDI_OR_CONTROL.test(text);
}
