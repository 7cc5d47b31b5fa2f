// Copies the pinned Swagger UI (the swagger-ui-dist dev dependency, exact version in package.json)
// into public/swagger-ui/, the static assets the /docs page loads from the service's own origin.
// Run by wrangler's build step (`wrangler dev`, `wrangler deploy`, hence `npm start` and the
// benchmark) and by vitest.config.ts; `node scripts/swagger-ui.mjs` runs it by hand. Files that are
// already up to date are left alone, so wrangler's asset watcher sees no change.
import { copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const FILES = ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png", "LICENSE", "NOTICE"];

export function copySwaggerUi() {
  const source = join(root, "node_modules", "swagger-ui-dist");
  if (!existsSync(source)) throw new Error("swagger-ui-dist is missing: run `npm install`");
  const target = join(root, "public", "swagger-ui");
  mkdirSync(target, { recursive: true });
  for (const file of FILES) {
    const from = join(source, file);
    const to = join(target, file);
    if (existsSync(to) && readFileSync(to).equals(readFileSync(from))) continue;
    copyFileSync(from, to);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) copySwaggerUi();
