// Global setup of the browser tests: finds Chromium, then runs the service under `wrangler dev`
// (test/wrangler-dev.mjs). Without Chromium the tests are skipped, except under CI, where each of
// them fails.
import { existsSync } from "node:fs";
import { startService } from "../wrangler-dev.mjs";

const CHROMIUM_PATHS = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

const inCi = () => Boolean(process.env.CI) && !["false", "0"].includes(process.env.CI.toLowerCase());

function findChromium() {
  const candidates = process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : CHROMIUM_PATHS;
  return candidates.find((path) => existsSync(path)) ?? null;
}

export default async function setup(project) {
  const chromium = findChromium();
  if (!chromium) {
    const looked = process.env.CHROMIUM_PATH ?? CHROMIUM_PATHS.join(" or ");
    if (inCi()) {
      // Every test then fails with this message (counted as failures, not skipped).
      project.provide("browser", { missing: `No Chromium at ${looked}, and CI is set: the browser tests must run (apt-get install chromium).` });
      return;
    }
    console.warn(`\nBrowser tests SKIPPED: no Chromium at ${looked}. Install Debian's chromium package or set CHROMIUM_PATH; under CI=true this is a failure.\n`);
    project.provide("browser", null);
    return;
  }

  const { url, adminToken, stop } = await startService("browser-test");
  project.provide("browser", { chromium, url, adminToken });
  return stop;
}
