#!/usr/bin/env node
// A receipt: the agent signs, with its registered Ed25519 key, that it dealt with a counterpart. The
// counterpart attaches it to its report (POST /transactions, field `receipt`) and the report weighs
// 1.5 times as much. An invalid receipt never fails the report; the answer says why it added nothing.
//
//   node examples/receipt.mjs --jwk ~/agent-key.json --sid "$SID" --aud 42 [--txn order-7]
//
// --aud is the counterpart's operator id (its GET /me shows `operator.id`). Prints the compact JWS.
// test/routes/identity-examples.test.ts sends receipts made by `signReceipt` to the service.
import { calculateJwkThumbprint, CompactSign, importJWK } from "jose";

/**
 * A compact JWS (EdDSA, typ trust-receipt+jwt, kid = the key's thumbprint) with `sub` the agent's SID,
 * `aud` the counterpart's operator id as a string, a fresh `jti` (each receipt counts once), `iat`
 * (the service accepts it for 24 hours) and optionally `txn`, your own reference of the deal.
 */
export async function signReceipt(privateJwk, { sid, operatorId, txn, jti = crypto.randomUUID(), now = Date.now() }) {
  const { kty, crv, x } = privateJwk;
  const kid = await calculateJwkThumbprint({ kty, crv, x }, "sha256");
  const claims = { sub: sid, aud: String(operatorId), jti, iat: Math.floor(now / 1000), ...(txn ? { txn } : {}) };
  return new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: "EdDSA", typ: "trust-receipt+jwt", kid })
    .sign(await importJWK(privateJwk, "EdDSA"));
}

async function main() {
  const { parseArgs } = await import("node:util");
  const { readFileSync } = await import("node:fs");
  const { values } = parseArgs({ options: { jwk: { type: "string" }, sid: { type: "string" }, aud: { type: "string" }, txn: { type: "string" } } });
  if (!values.jwk || !values.sid || !values.aud) throw new Error("usage: receipt.mjs --jwk FILE --sid SID --aud OPERATOR_ID [--txn REF]");
  console.log(await signReceipt(JSON.parse(readFileSync(values.jwk, "utf8")), { sid: values.sid, operatorId: values.aud, txn: values.txn }));
}

if (typeof process !== "undefined" && process.argv?.[1] && import.meta.url === (await import("node:url")).pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
