import { describe, expect, inject, it } from "vitest";

/** The security suite's own check that its shared system is up behind the front door. */
describe("the system under attack, as npm start runs it", () => {
  for (const [name, system] of Object.entries(inject("sharedSystems"))) {
    it(`${name}: answers through the front door, the purchase path included`, async () => {
      expect((await fetch(`${system.url}/api/health`)).status).toBe(200);
      const answer = await fetch(`${system.url}/api/seckill/seckill.token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ json: { saleId: 1 } }),
      });
      expect(answer.status).toBe(401);
    });
  }
});
