import { it } from "vitest";
import { writeFile } from "node:fs/promises";
import { bearer, call, createOperator, registerAgent, freshIp } from "../helpers";
it("probe", async () => {
  const { key } = await createOperator();
  const { sid } = await registerAgent(key, { name: "<script>alert(1)</script>" });
  const r0 = await call(`/agents/${sid}`, { headers: { accept: "application/json" } });
  console.log(r0.status, [...r0.headers].map(x=>x.join(": ")).join(" | "), await r0.text());
  const put = await call(`/agents/${sid}/public-profile`, { method: "PUT", headers: bearer(key), body: { public_profile: true } });
  console.log(put.status, await put.text());
  const r = await call(`/agents/${sid}`, { headers: { accept: "text/html", "cf-connecting-ip": freshIp() } });
  console.log(r.status, [...r.headers].map(x=>x.join(": ")).join(" | "));
  console.log(await r.text());
});
