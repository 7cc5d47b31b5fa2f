#!/usr/bin/env node
// A webhook endpoint: checks each delivery's Standard Webhooks signature with the `standardwebhooks`
// package before believing it, and answers 2xx quickly (anything else is retried for 24 hours).
//
//   WEBHOOK_SECRET=whsec_... node examples/webhook-receiver.mjs --port 8080
//
// The service only calls public HTTPS URLs on port 443: put this behind your HTTPS front end (on your
// own machine, `npm run webhooks:listen` does the same over plain http to 127.0.0.1).
// test/routes/webhook-example.test.ts checks `verifyDelivery` against the service's own signing.
import { Webhook } from "standardwebhooks";

/**
 * The event of a delivery (`{type, timestamp, data}`) when its signature holds for `secret` (the
 * `whsec_...` shown once by POST /webhooks) and its webhook-timestamp is within 5 minutes; throws
 * otherwise. `rawBody` must be the body exactly as received, before any JSON parsing. `headers` is a
 * plain object (Node's req.headers) or a fetch Headers (Workers, Deno, Bun): the package reads only
 * plain objects.
 */
export function verifyDelivery(secret, rawBody, headers) {
  const plain = typeof Headers !== "undefined" && headers instanceof Headers ? Object.fromEntries(headers) : headers;
  return new Webhook(secret).verify(rawBody, plain);
}

async function main() {
  const { createServer } = await import("node:http");
  const { parseArgs } = await import("node:util");
  const { values } = parseArgs({ options: { port: { type: "string" } } });
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) throw new Error("set WEBHOOK_SECRET to the secret POST /webhooks returned");
  // webhook-id is the same on every retry of one event: remember the ones handled (here, in memory).
  const handled = new Set();

  createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      let event;
      try {
        event = verifyDelivery(secret, Buffer.concat(chunks).toString("utf8"), req.headers);
      } catch (err) {
        res.writeHead(400).end(`signature refused: ${err.message}`);
        return;
      }
      const id = req.headers["webhook-id"];
      if (!handled.has(id)) {
        handled.add(id);
        console.log(id, event.type, JSON.stringify(event.data));
      }
      res.writeHead(204).end();
    });
  }).listen(Number(values.port ?? 8080), () => console.log(`listening on ${values.port ?? 8080}`));
}

if (typeof process !== "undefined" && process.argv?.[1] && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
