// The change set's patch as a diff, rendered by diff2html (which escapes every line and name it
// prints). Each line of the patch goes to it with its control and bidi characters written out, as
// every other text of the console is (so a line cannot read differently from what applies, and a
// lone carriage return cannot split one line into two); what it renders is put into the page only
// after a second look that keeps no script, no handler, no style and no link at all (its file list's
// anchors would move the console's own address, which names the page) and writes out any such
// character left in its text or attributes, so a hostile patch stays text.

import { html, parse } from "diff2html";
import { useEffect, useRef } from "preact/hooks";
import { shown, shownPatch } from "../text";

const DROPPED_ELEMENTS = new Set(["SCRIPT", "STYLE", "LINK", "META", "IFRAME", "OBJECT", "EMBED", "FORM", "BASE", "SVG", "MATH", "TEMPLATE"]);
const LINKING_ATTRIBUTES = new Set(["href", "src", "action", "formaction", "xlink:href", "srcset", "poster", "background"]);

export function PatchView({ patch }: { patch: string }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const target = holder.current;
    if (target === null) return;
    const files = parse(shownPatch(patch));
    target.replaceChildren(...inert(html(files, { drawFileList: true, outputFormat: "line-by-line", matching: "lines" })));
    namedAsWritten(target, files);
  }, [patch]);
  return <div class="patch" ref={holder} />;
}

/**
 * diff2html prints each "\" of a file's name as "/" (it unifies Windows paths), which would make a
 * written-out "\u{202e}" read "/u{202e}", a folder that is not there: each name it printed so is put
 * back as the patch has it, file by file in the patch's order.
 */
function namedAsWritten(holder: HTMLElement, files: ReturnType<typeof parse>): void {
  const names = files.map((file) => (file.newName === "/dev/null" ? file.oldName : file.newName));
  for (const where of [".d2h-file-list .d2h-file-name", ".d2h-file-wrapper .d2h-file-name"]) {
    const printed = holder.querySelectorAll(where);
    if (printed.length !== names.length) continue;
    printed.forEach((element, index) => {
      const name = names[index] ?? "";
      if (name.includes("\\") && element.textContent === name.replaceAll("\\", "/")) element.textContent = name;
    });
  }
}

/** The markup as nodes of this document, without anything that could run, load or lead away, and with nothing in it unwritten that reorders or drives what reads it. */
function inert(markup: string): Node[] {
  const parsed = new DOMParser().parseFromString(`<body>${markup}</body>`, "text/html");
  for (const element of [...parsed.body.querySelectorAll("*")]) {
    if (DROPPED_ELEMENTS.has(element.tagName.toUpperCase())) {
      element.remove();
      continue;
    }
    for (const attribute of [...element.attributes]) {
      const name = attribute.name.toLowerCase();
      if (name.startsWith("on") || name === "style" || LINKING_ATTRIBUTES.has(name)) element.removeAttribute(attribute.name);
      else if (shown(attribute.value) !== attribute.value) element.setAttribute(attribute.name, shown(attribute.value));
    }
  }
  const texts = parsed.createTreeWalker(parsed.body, NodeFilter.SHOW_TEXT);
  for (let text = texts.nextNode(); text !== null; text = texts.nextNode()) {
    const value = text.nodeValue ?? "";
    if (shown(value) !== value) text.nodeValue = shown(value);
  }
  return [...parsed.body.childNodes].map((node) => document.importNode(node, true));
}
