// The console's build: one page whose script and styles are files of their own (the service's
// Content-Security-Policy allows no inline script or style), hashed for long caching, written
// into the package's dist/console/, which `agentcage serve` serves at / and /console/.

import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const here = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root: here,
  base: "/console/",
  // Preact's JSX, compiled by Vite's own transformer: no plugin needed for a page without hot reload.
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../dist/console", import.meta.url)),
    emptyOutDir: true,
    // Chromium, Firefox and Safari of the last years load modules natively; no polyfill script.
    modulePreload: { polyfill: false },
    target: "es2022",
    // Small enough that one file is best: nothing is inlined as a data: URL either way.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  logLevel: "warn",
});
