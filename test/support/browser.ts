// A real browser for the console's tests: Debian's chromium (provisioned by `npm test`), headless,
// driven by playwright-core, in a fresh profile playwright makes and removes. The flags keep it off
// the network it would otherwise reach for by itself (updates, sync, safe browsing), closed here.

import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";

export async function openBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no ${CHROMIUM}: run npm run provision -- --browser (it installs Debian's chromium)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}
