import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestEnvironment, startSystem, type ChildHandle, type TestEnvironment } from "../testing/harness";

/** The security suite's own check that its harness brings the whole system up behind the front door. */
describe("the system under attack, as npm start runs it", () => {
  let t: TestEnvironment;
  let system: ChildHandle & { url: string };

  beforeAll(async () => {
    t = await createTestEnvironment("security_system");
    system = await startSystem(t.childEnv, { DEMO_SALE: "0" });
  });
  afterAll(async () => {
    await system?.stop();
    await t?.cleanup();
  });

  it("answers through the front door, the purchase path included", async () => {
    expect((await fetch(`${system.url}/api/health`)).status).toBe(200);
    const answer = await fetch(`${system.url}/api/seckill/seckill.token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ json: { saleId: 1 } }),
    });
    expect(answer.status).toBe(401);
  });
});
