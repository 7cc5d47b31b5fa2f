// Launching Debian's Chromium with playwright-core (no browser download) and the service under test,
// as provided by service.mjs.
import { chromium } from "playwright-core";
import { inject } from "vitest";

/**
 * `{chromium, url, adminToken}` of the running service; null when the tests are skipped, `{missing}`
 * when Chromium is missing under CI (chromium.test.mjs then fails).
 */
export const service = inject("browser");
/** Whether the service runs and Chromium is there: the browser tests are skipped otherwise. */
export const ready = Boolean(service?.url);

export function launch() {
  return chromium.launch({
    executablePath: service.chromium,
    headless: true,
    // Quiet and offline: nothing but the pages under test may reach the network.
    args: ["--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
