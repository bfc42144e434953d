// The change set's patch as a diff, rendered by diff2html (which escapes every line and name it
// prints). What it renders is put into the page only after a second look that keeps no script,
// no handler, no style and no link at all (its file list's anchors would move the console's own
// address, which names the page), so a hostile patch stays text.

import { html } from "diff2html";
import { useEffect, useRef } from "preact/hooks";

const DROPPED_ELEMENTS = new Set(["SCRIPT", "STYLE", "LINK", "META", "IFRAME", "OBJECT", "EMBED", "FORM", "BASE", "SVG", "MATH", "TEMPLATE"]);
const LINKING_ATTRIBUTES = new Set(["href", "src", "action", "formaction", "xlink:href", "srcset", "poster", "background"]);

export function PatchView({ patch }: { patch: string }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const target = holder.current;
    if (target === null) return;
    const rendered = html(patch, { drawFileList: true, outputFormat: "line-by-line", matching: "lines" });
    target.replaceChildren(...inert(rendered));
  }, [patch]);
  return <div class="patch" ref={holder} />;
}

/** The markup as nodes of this document, without anything that could run, load or lead away. */
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
    }
  }
  return [...parsed.body.childNodes].map((node) => document.importNode(node, true));
}
