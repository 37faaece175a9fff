import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLiveSale } from "../testing/harness";
import { joinSharedSystem, SHARED_SYSTEMS, type JoinedSystem, type SharedSystemName } from "../testing/shared-systems";
import { warmUpSale } from "../warmup/warmup";

/** The security suite's own check that its shared systems are up behind their front doors. */
describe.each(Object.keys(SHARED_SYSTEMS) as SharedSystemName[])("the %s system under attack, as npm start runs it", (name) => {
  let t: JoinedSystem;
  let saleId: number;
  // A sale of this file's own: another file's sold-out sale is answered before the session is read.
  beforeAll(async () => {
    t = await joinSharedSystem(name);
    ({ saleId } = await createLiveSale(t.services, { productName: "System check", stock: 5 }));
    await warmUpSale(t.services, saleId);
  });
  afterAll(() => t?.close());

  it("answers through the front door, the purchase path included", async () => {
    expect((await fetch(`${t.system.url}/api/health`)).status).toBe(200);
    const answer = await fetch(`${t.system.url}/api/seckill/seckill.token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ json: { saleId } }),
    });
    expect(answer.status).toBe(401);
  });
});
