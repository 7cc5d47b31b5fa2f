// A DNS-over-HTTPS resolver on the loopback interface for the chaos run, so that a webhook can be
// registered without the internet and nothing ever leaves the machine. Its certificate comes from a
// throw-away CA (openssl) that the runtime trusts through NODE_EXTRA_CA_CERTS. It answers a host with
// a public address only while the run registers it (`publicWhile`); at any other time every name
// resolves to 127.0.0.1, so the service's guard refuses each delivery before it connects anywhere.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/** A public unicast address the guard accepts; never connected to (see above). */
const PUBLIC_ADDRESS = "192.0.32.10";

export interface LocalDoh {
  /** The https URL of the resolver, for DOH_ENDPOINT. */
  endpoint: string;
  /** The CA certificate to trust (NODE_EXTRA_CA_CERTS). */
  caFile: string;
  /** Runs `work` while `host` resolves to a public address. */
  publicWhile<T>(host: string, work: () => Promise<T>): Promise<T>;
  /** How many queries were answered, public and loopback. */
  queries: { public: number; loopback: number };
  close(): Promise<void>;
}

function openssl(args: string[], cwd: string): void {
  const run = spawnSync("openssl", args, { cwd, encoding: "utf8" });
  if (run.error || run.status !== 0) throw new Error(`openssl ${args[0]} failed: ${run.error?.message ?? run.stderr}`);
}

/** A CA and a certificate for 127.0.0.1 it signed, in `dir`. Throws when openssl is missing. */
function makeCertificates(dir: string): { ca: string; key: string; cert: string } {
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  openssl(["req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=trust-chaos local CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"], dir);
  openssl(["req", ...ec, "-keyout", "doh.key", "-out", "doh.csr", "-subj", "/CN=127.0.0.1"], dir);
  writeFileSync(join(dir, "doh.ext"), "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n");
  openssl(["x509", "-req", "-in", "doh.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "doh.pem", "-days", "2", "-extfile", "doh.ext"], dir);
  return { ca: join(dir, "ca.pem"), key: join(dir, "doh.key"), cert: join(dir, "doh.pem") };
}

export async function startLocalDoh(dir: string): Promise<LocalDoh> {
  const files = makeCertificates(dir);
  const publicHosts = new Map<string, number>();
  const queries = { public: 0, loopback: 0 };
  const server: Server = createServer({ key: readFileSync(files.key), cert: readFileSync(files.cert) }, (req, res) => {
    const url = new URL(req.url ?? "/", "https://127.0.0.1");
    const name = (url.searchParams.get("name") ?? "").replace(/\.$/, "").toLowerCase();
    const type = url.searchParams.get("type");
    const isPublic = (publicHosts.get(name) ?? 0) > 0;
    const answer = type === "A" ? [{ name, type: 1, TTL: 1, data: isPublic ? PUBLIC_ADDRESS : "127.0.0.1" }] : [];
    if (type === "A") queries[isPublic ? "public" : "loopback"]++;
    res.writeHead(200, { "content-type": "application/dns-json" });
    res.end(JSON.stringify({ Status: 0, Answer: answer }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `https://127.0.0.1:${port}/dns-query`,
    caFile: files.ca,
    queries,
    async publicWhile(host, work) {
      const name = host.toLowerCase();
      publicHosts.set(name, (publicHosts.get(name) ?? 0) + 1);
      try {
        return await work();
      } finally {
        publicHosts.set(name, publicHosts.get(name)! - 1);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
