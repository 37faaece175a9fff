import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLiveSale, createTestEnvironment, type TestEnvironment } from "../testing/harness";
import { createShoppers, type SeededShopper } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { purchaseWithTicket } from "../seckill/purchase";
import { joinRoom, type Waiting } from "../room-join/join";
import { readRoom } from "./room-reading";

/**
 * A process's cached room reading (room-reading.ts) across a room closed and opened again, against
 * the real Redis and MariaDB, in this process: every call is made at one instant `at` of this
 * process's clock, a few seconds ahead, so the cache is never a second old and only the ticket's
 * opening can make it read again. The script judges the moment by Redis's clock (waitUntil).
 */
let t: TestEnvironment;
let shoppers: SeededShopper[];
beforeAll(async () => {
  t = await createTestEnvironment("room_reading");
  shoppers = await createShoppers(t.services, 3, { emailPrefix: "room-reading" });
});
afterAll(() => t?.cleanup());

async function roomSale() {
  const { saleId } = await createLiveSale(t.services, { stock: 10, unitLimit: 2, admissionRate: 100, arrivalOrder: "ARRIVAL" });
  const setRate = async (admissionRate: number) => {
    await t.services.db.sale.update({ where: { id: saleId }, data: { admissionRate } });
    return (await warmUpSale(t.services, saleId)).room?.action;
  };
  expect(await setRate(100)).toBe("OPEN");
  return { saleId, setRate };
}

async function join(saleId: number, shopper: SeededShopper): Promise<Waiting> {
  const answer = await joinRoom(t.services, { saleId, userId: shopper.id });
  expect(answer.status).toBe("WAITING");
  return answer as Waiting;
}

const waitUntil = (epochMs: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, epochMs - Date.now()) + 20));
const buy = (saleId: number, shopper: SeededShopper, waiting: Waiting, at: number) =>
  purchaseWithTicket(t.services, { saleId, userId: shopper.id, ticket: waiting.ticket }, at);

describe("a cached room reading and a room opened again", () => {
  it("takes the new opening's ticket at once, and then refuses the earlier opening's", async () => {
    const { saleId, setRate } = await roomSale();
    const earlier = await join(saleId, shoppers[0]!);
    const at = Date.now() + 5000;
    expect((await readRoom(t.services, saleId, at))?.epoch).toBe(earlier.epoch);
    expect(await setRate(0)).toBe("CLOSE");
    expect(await setRate(100)).toBe("OPEN");
    const fresh = await join(saleId, shoppers[1]!);
    expect(fresh.epoch).toBeGreaterThan(earlier.epoch);
    await waitUntil(fresh.admitAt);
    // The cached reading still names the earlier opening; the ticket's opening is read again.
    expect((await buy(saleId, shoppers[1]!, fresh, at)).status).toBe("QUEUED");
    // And the cache now knows the new opening: the earlier one's ticket is no pass.
    expect((await readRoom(t.services, saleId, at))?.epoch).toBe(fresh.epoch);
    expect((await buy(saleId, shoppers[0]!, earlier, at)).status).toBe("INVALID_TICKET");
  });

  it("takes the new opening's ticket at once when the cached reading is of the room closed", async () => {
    const { saleId, setRate } = await roomSale();
    const earlier = await join(saleId, shoppers[0]!);
    await waitUntil(earlier.admitAt);
    expect(await setRate(0)).toBe("CLOSE");
    const at = Date.now() + 5000;
    expect(await readRoom(t.services, saleId, at)).toBeNull();
    // The closed room's tickets stay refused.
    expect((await buy(saleId, shoppers[0]!, earlier, at)).status).toBe("INVALID_TICKET");
    expect(await setRate(100)).toBe("OPEN");
    const fresh = await join(saleId, shoppers[2]!);
    await waitUntil(fresh.admitAt);
    expect((await buy(saleId, shoppers[2]!, fresh, at)).status).toBe("QUEUED");
  });
});
