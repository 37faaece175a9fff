import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLiveSale, createTestEnvironment, type TestEnvironment } from "../../server/testing/harness";
import { createShoppers, type SeededShopper } from "../../server/testing/seed";
import { answerOf, PURCHASE_PATH, TOKEN_PATH } from "./crowd";
import { startNpmStart, type NpmStartSystem } from "./npm-start";
import { processTree } from "./procs";

/**
 * The bench's front-door rows start the real `npm start` (server/cli/start.ts) and send the
 * purchase path through its PORT and straight at its seckill service: both doors must sell, and
 * the CPU they count must be every process that start.ts spawned.
 */
let t: TestEnvironment;
let system: NpmStartSystem | undefined;
let shoppers: SeededShopper[];
let saleId: number;

beforeAll(async () => {
  t = await createTestEnvironment("bench_npm_start");
  shoppers = await createShoppers(t.services, 2, { emailPrefix: "npm-start" });
  ({ saleId } = await createLiveSale(t.services, { stock: 10 }));
  system = await startNpmStart(t.childEnv, () => {});
});
afterAll(async () => {
  await system?.stop();
  await t?.cleanup();
});

/** One shopper's two steps at `base`, with their own address as the crowd sends it. */
async function buy(base: string, shopper: SeededShopper, address: string) {
  const headers = { "content-type": "application/json", authorization: `Bearer ${shopper.token}`, "x-forwarded-for": address };
  const post = async (path: string, json: unknown) => {
    const response = await fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify({ json }) });
    return answerOf(response.status, await response.text());
  };
  const token = await post(TOKEN_PATH, { saleId });
  if (token.outcome !== "ISSUED") return token.outcome;
  return (await post(PURCHASE_PATH, { saleId, token: token.token })).outcome;
}

describe("startNpmStart", () => {
  it("gives the front door on PORT and the seckill service's own port, each selling", async () => {
    expect(system!.seckillUrl).not.toBe(system!.frontDoorUrl);
    expect(await buy(system!.frontDoorUrl, shoppers[0]!, "10.0.0.1")).toBe("QUEUED");
    expect(await buy(system!.seckillUrl, shoppers[1]!, "10.0.0.2")).toBe("QUEUED");
  });

  it("counts start.ts and every process it spawned, and stops them all", async () => {
    const processes = system!.processes();
    expect(Object.keys(processes)).toEqual(expect.arrayContaining(["server/cli/start.ts", "server/cli/seckill.ts", "worker/main.ts"]));
    const pids = Object.values(processes).flat();
    expect(pids.length).toBeGreaterThanOrEqual(4);
    await system!.stop();
    system = undefined;
    expect(pids.filter((pid) => Object.keys(processTree(pid)).length > 0)).toEqual([]);
  });
});
