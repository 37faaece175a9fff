import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createLiveSale,
  createTestEnvironment,
  readMetric,
  startSeckillService,
  type ChildHandle,
  type TestEnvironment,
} from "../testing/harness";
import { createShoppers, type SeededShopper } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { roomKeys, saleKeys } from "../sale-redis/keys";
import { updateStanding } from "../gateway/standing";
import { openRoom, type RoomSettings } from "../testing/room";
import { signTicket } from "./ticket";
import { solveRoomChallenge } from "./challenge-solver";

/**
 * The waiting room's path over real HTTP against a real seckill service process (the one `npm
 * start` runs), real Redis and MariaDB: room.join, then seckill.purchase with the ticket. What a
 * shopper can do with a ticket that is not theirs, not yet a pass, or spent is refused, and
 * refused without a reservation.
 */
let t: TestEnvironment;
let service: ChildHandle & { url: string };
let shoppers: SeededShopper[];

beforeAll(async () => {
  t = await createTestEnvironment("room_path", { REQUEST_RATE_PER_IP: "0", REDIS_COMMAND_TIMEOUT_MS: "10000" });
  service = await startSeckillService(t.childEnv);
  shoppers = await createShoppers(t.services, 8, { emailPrefix: "room" });
});
afterAll(async () => {
  await service?.stop();
  await t?.cleanup();
});

interface Answer {
  status: number;
  data?: Record<string, unknown> & { status: string };
  error?: { message: string; data: { code: string } };
}

async function mutate(procedure: string, input: unknown, shopper: SeededShopper, lang = "en"): Promise<Answer> {
  const response = await fetch(`${service.url}/api/seckill/${procedure}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${shopper.token}`, "accept-language": lang },
    body: JSON.stringify({ json: input }),
  });
  const body = (await response.json()) as { result?: { data: { json: Answer["data"] } }; error?: { json: Answer["error"] } };
  return { status: response.status, data: body.result?.data.json, error: body.error?.json };
}

interface Waiting {
  status: "WAITING";
  ticket: string;
  seat: number;
  position: number;
  admitAt: number;
}
async function join(saleId: number, shopper: SeededShopper, again = false): Promise<Waiting> {
  const answer = await mutate("room.join", { saleId, again }, shopper);
  expect(answer.data?.status, JSON.stringify(answer)).toBe("WAITING");
  return answer.data as unknown as Waiting;
}

const buy = (saleId: number, shopper: SeededShopper, ticket: string) => mutate("seckill.purchase", { saleId, ticket }, shopper);

async function roomSale(room: RoomSettings, sale: { stock?: number; unitLimit?: number; startsAt?: Date } = {}) {
  const { saleId } = await createLiveSale(t.services, {
    stock: sale.stock ?? 10,
    unitLimit: sale.unitLimit ?? 1,
    ...(sale.startsAt ? { startsAt: sale.startsAt } : {}),
  });
  await warmUpSale(t.services, saleId);
  await openRoom(t.services, saleId, room);
  return saleId;
}

async function reservations(saleId: number) {
  const keys = saleKeys(t.env.REDIS_NAMESPACE, saleId);
  return {
    stock: Number(await t.services.redis.get(keys.stock)),
    pending: await t.services.redis.zcard(keys.pending),
    counted: await t.services.redis.hlen(keys.users),
  };
}

const waitUntil = (epochMs: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, epochMs - Date.now()) + 20));

describe("room.join and a purchase with its ticket, over HTTP (seckill service)", () => {
  it("one request buys at the admitted moment, and the same ticket never buys twice", async () => {
    const saleId = await roomSale({ rate: 100, order: "ARRIVAL", opensAt: Date.now() - 1000 }, { unitLimit: 2 });
    const waiting = await join(saleId, shoppers[0]!);
    await waitUntil(waiting.admitAt);
    expect((await buy(saleId, shoppers[0]!, waiting.ticket)).data?.status).toBe("QUEUED");
    expect(await reservations(saleId)).toEqual({ stock: 9, pending: 1, counted: 1 });
    // A replay of the spent ticket: refused by the script, nothing more reserved.
    expect((await buy(saleId, shoppers[0]!, waiting.ticket)).data?.status).toBe("TICKET_USED");
    expect(await reservations(saleId)).toEqual({ stock: 9, pending: 1, counted: 1 });
    // Buying again takes a new seat at the back.
    const again = await join(saleId, shoppers[0]!, true);
    expect(again.seat).toBeGreaterThan(waiting.seat);
  });

  it("refuses a forged ticket, another shopper's copied ticket and an edited place or moment, reserving nothing", async () => {
    const saleId = await roomSale({ rate: 100, order: "ARRIVAL", opensAt: Date.now() - 1000 });
    // Someone ahead, so that moving up the line is an edit.
    await join(saleId, shoppers[2]!);
    const mine = await join(saleId, shoppers[1]!);
    expect(mine.position).toBe(2);
    await waitUntil(mine.admitAt);
    const [epoch, seat, , admitAt, mac] = mine.ticket.split(".");
    const forged = `${epoch}.${mine.seat}.${mine.position}.${mine.admitAt}.${"A".repeat(22)}`;
    const movedUp = `${epoch}.${seat}.1.${admitAt}.${mac}`;
    const earlier = `${epoch}.${seat}.${mine.position}.${Number(admitAt) - 1000}.${mac}`;
    // A ticket signed with some other secret, the shape right.
    const otherSecret = signTicket(
      "another-secret-of-at-least-32-characters!!",
      { saleId, userId: shoppers[1]!.id },
      { epoch: Number(epoch), seq: mine.seat, position: 1, admitAt: Date.now() - 1000 },
    );
    for (const ticket of [forged, movedUp, earlier, otherSecret])
      expect((await buy(saleId, shoppers[1]!, ticket)).data?.status, ticket).toBe("INVALID_TICKET");
    // Copied to another shopper: the MAC binds it to its holder.
    expect((await buy(saleId, shoppers[2]!, mine.ticket)).data?.status).toBe("INVALID_TICKET");
    // Another sale's: bound to its sale too.
    const otherSale = await roomSale({ rate: 100, order: "ARRIVAL", opensAt: Date.now() - 1000 });
    expect((await buy(otherSale, shoppers[1]!, mine.ticket)).data?.status).toBe("INVALID_TICKET");
    expect(await reservations(saleId)).toEqual({ stock: 10, pending: 0, counted: 0 });
    // A malformed one is bad input.
    const malformed = await buy(saleId, shoppers[1]!, "not-a-ticket");
    expect(malformed.status).toBe(400);
    // The genuine one still buys.
    expect((await buy(saleId, shoppers[1]!, mine.ticket)).data?.status).toBe("QUEUED");
  });

  it("refuses a ticket of a room closed and opened since as a forged one, and the new seat of a spent one's number buys", async () => {
    const { saleId } = await createLiveSale(t.services, { stock: 10, unitLimit: 2, admissionRate: 100, arrivalOrder: "ARRIVAL" });
    const setRate = async (admissionRate: number) => {
      await t.services.db.sale.update({ where: { id: saleId }, data: { admissionRate } });
      return (await warmUpSale(t.services, saleId)).room?.action;
    };
    expect(await warmUpSale(t.services, saleId)).toMatchObject({ room: { action: "OPEN" } });
    const spent = await join(saleId, shoppers[0]!);
    const unspent = await join(saleId, shoppers[1]!);
    await waitUntil(Math.max(spent.admitAt, unspent.admitAt));
    expect((await buy(saleId, shoppers[0]!, spent.ticket)).data?.status).toBe("QUEUED");
    // The operator closes the room (admission rate 0) and opens it again: seats restart from 1.
    expect(await setRate(0)).toBe("CLOSE");
    expect(await setRate(100)).toBe("OPEN");
    // Every process's reading of the room is at most a second old (room-reading.ts).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const before = await reservations(saleId);
    // Still within its pass window, the earlier opening's ticket is answered as a forged one is.
    const forged = `${unspent.ticket.slice(0, -22)}${"A".repeat(22)}`;
    const forgedAnswer = await buy(saleId, shoppers[1]!, forged);
    expect(forgedAnswer.data).toEqual({ status: "INVALID_TICKET" });
    expect((await buy(saleId, shoppers[1]!, unspent.ticket)).data).toEqual(forgedAnswer.data);
    expect(await reservations(saleId)).toEqual(before);
    // The first shopper's seat in the new room has their spent ticket's number; it is not spent.
    const fresh = await join(saleId, shoppers[0]!);
    expect(fresh.seat).toBe(spent.seat);
    await waitUntil(fresh.admitAt);
    expect((await buy(saleId, shoppers[0]!, fresh.ticket)).data?.status).toBe("QUEUED");
  });

  it("refuses room.join to a shopper the purchase would refuse, with the purchase's answer, seating no one; others still join", async () => {
    const [blacklisted, plain] = await createShoppers(t.services, 2, { emailPrefix: "room-eligibility" });
    await t.services.db.user.update({ where: { id: blacklisted!.id }, data: { blacklisted: true } });
    const { saleId } = await createLiveSale(t.services, { stock: 10, admissionRate: 100, arrivalOrder: "ARRIVAL" });
    await warmUpSale(t.services, saleId);
    const meta = roomKeys(t.env.REDIS_NAMESPACE, saleId).meta;
    const refused = await mutate("room.join", { saleId }, blacklisted!);
    expect(refused.data).toEqual({ status: "BLACKLISTED" });
    expect(await t.services.redis.hget(meta, "joined")).toBe("0");
    // The line did not move for them either: nobody else waits longer.
    expect((await join(saleId, plain!)).position).toBe(1);
    expect(await t.services.redis.hget(meta, "joined")).toBe("1");
  });

  it("keeps the join's eligibility in step with a standing changed mid-sale", async () => {
    const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "room-level" });
    const { saleId } = await createLiveSale(t.services, { stock: 10, admissionRate: 100, arrivalOrder: "ARRIVAL", minMemberLevel: 2 });
    await warmUpSale(t.services, saleId);
    expect((await mutate("room.join", { saleId }, shopper!)).data).toEqual({ status: "MEMBER_LEVEL_TOO_LOW" });
    await updateStanding(t.services, shopper!.id, { memberLevel: 2 });
    expect((await join(saleId, shopper!)).seat).toBe(1);
    await updateStanding(t.services, shopper!.id, { memberLevel: 1 });
    expect((await mutate("room.join", { saleId }, shopper!)).data).toEqual({ status: "MEMBER_LEVEL_TOO_LOW" });
  });

  it("answers NOT_ADMITTED_YET with the moment before it, reserving nothing; a reload keeps the seat and the place", async () => {
    const saleId = await roomSale({ rate: 1, order: "ARRIVAL", opensAt: Date.now() - 100 });
    const first = await join(saleId, shoppers[3]!);
    const second = await join(saleId, shoppers[4]!);
    expect(second.seat).toBe(first.seat + 1);
    expect(second.admitAt).toBeGreaterThan(Date.now() + 500);
    const early = await buy(saleId, shoppers[4]!, second.ticket);
    expect(early.data).toEqual({ status: "NOT_ADMITTED_YET", admitAt: second.admitAt });
    expect(await reservations(saleId)).toEqual({ stock: 10, pending: 0, counted: 0 });
    const reload = await join(saleId, shoppers[4]!);
    expect({ seat: reload.seat, position: reload.position }).toEqual({ seat: second.seat, position: second.position });
    expect(Math.abs(reload.admitAt - second.admitAt)).toBeLessThanOrEqual(1);
  });

  it("draws the places of everyone who joined before the opening (RANDOM): a permutation of the early seats", async () => {
    const opensAt = Date.now() + 2500;
    const saleId = await roomSale({ rate: 50, order: "RANDOM", opensAt }, { startsAt: new Date(opensAt) });
    const early = shoppers.slice(0, 6);
    const before = await Promise.all(early.map((shopper) => join(saleId, shopper)));
    for (const waiting of before) expect({ position: waiting.position, admitAt: waiting.admitAt }).toEqual({ position: 0, admitAt: 0 });
    // An undrawn ticket is no pass.
    expect((await buy(saleId, early[0]!, before[0]!.ticket)).data).toEqual({ status: "NOT_ADMITTED_YET", admitAt: 0 });
    await waitUntil(opensAt);
    const after = await Promise.all(early.map((shopper) => join(saleId, shopper)));
    expect(after.map((waiting) => waiting.seat)).toEqual(before.map((waiting) => waiting.seat));
    expect(after.map((waiting) => waiting.position).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    // A late arrival queues behind the drawn.
    const late = await join(saleId, shoppers[6]!);
    expect(late.position).toBe(7);
  });

  it("refuses a purchase token for a room sale, and room.join for a sale without a room, in English and Chinese", async () => {
    const saleId = await roomSale({ rate: 10 });
    const en = await mutate("seckill.token", { saleId }, shoppers[5]!);
    expect(en.error?.data.code).toBe("PRECONDITION_FAILED");
    expect(en.error?.message).toBe("This sale has a waiting room: join it to buy.");
    expect((await mutate("seckill.token", { saleId }, shoppers[5]!, "zh-CN")).error?.message).toBe(
      "本场秒杀设有排队室：请先进入排队室再购买。",
    );
    expect(await t.services.redis.exists(saleKeys(t.env.REDIS_NAMESPACE, saleId).token(shoppers[5]!.id))).toBe(0);

    const { saleId: plain } = await createLiveSale(t.services, { stock: 5 });
    await warmUpSale(t.services, plain);
    const noRoom = await mutate("room.join", { saleId: plain }, shoppers[5]!);
    expect(noRoom.error?.data.code).toBe("PRECONDITION_FAILED");
    expect(noRoom.error?.message).toBe("This sale has no waiting room: buy directly.");
  });

  it("with the challenge on: no solution or another seat's is refused in process, a solved one buys once", async () => {
    const saleId = await roomSale({ rate: 100, order: "ARRIVAL", opensAt: Date.now() - 1000, challenge: true }, { unitLimit: 2 });
    const other = await mutate("room.join", { saleId }, shoppers[6]!);
    const answer = await mutate("room.join", { saleId }, shoppers[7]!);
    const waiting = answer.data as unknown as Waiting & { challenge: unknown };
    expect(waiting.challenge, "the join answer carries the challenge").toBeTruthy();
    const [solution, othersSolution] = await Promise.all([
      solveRoomChallenge(waiting.challenge),
      solveRoomChallenge(other.data?.challenge),
    ]);
    await waitUntil(waiting.admitAt);
    const reservesBefore = await readMetric(service.url, "seckill_reserve_calls_total");
    const refused = [
      await buy(saleId, shoppers[7]!, waiting.ticket),
      await mutate("seckill.purchase", { saleId, ticket: waiting.ticket, solution: othersSolution }, shoppers[7]!),
      await mutate("seckill.purchase", { saleId, ticket: waiting.ticket, solution: `${solution.slice(0, -4)}AAAA` }, shoppers[7]!),
    ];
    for (const refusal of refused) expect(refusal.data?.status).toBe("CHALLENGE_REQUIRED");
    // Refused before any reservation script ran, and nothing reserved.
    expect(await readMetric(service.url, "seckill_reserve_calls_total")).toBe(reservesBefore);
    expect(await reservations(saleId)).toEqual({ stock: 10, pending: 0, counted: 0 });
    const withSolution = () => mutate("seckill.purchase", { saleId, ticket: waiting.ticket, solution }, shoppers[7]!);
    expect((await withSolution()).data?.status).toBe("QUEUED");
    // The same solution again: its ticket is spent, so it is refused.
    expect((await withSolution()).data?.status).toBe("TICKET_USED");
    expect(await reservations(saleId)).toEqual({ stock: 9, pending: 1, counted: 1 });
  });

  it("with the challenge on: a solution from a room closed and opened since is refused for the same seat number", async () => {
    const { saleId } = await createLiveSale(t.services, {
      stock: 10,
      admissionRate: 100,
      arrivalOrder: "ARRIVAL",
      purchaseChallenge: true,
    });
    const setRate = async (admissionRate: number) => {
      await t.services.db.sale.update({ where: { id: saleId }, data: { admissionRate } });
      return (await warmUpSale(t.services, saleId)).room?.action;
    };
    expect(await setRate(100)).toBe("OPEN");
    const earlier = (await mutate("room.join", { saleId }, shoppers[0]!)).data as unknown as Waiting & { challenge: unknown };
    const earlierSolution = await solveRoomChallenge(earlier.challenge);
    expect(await setRate(0)).toBe("CLOSE");
    expect(await setRate(100)).toBe("OPEN");
    const fresh = (await mutate("room.join", { saleId }, shoppers[0]!)).data as unknown as Waiting & { challenge: unknown };
    expect(fresh.seat).toBe(earlier.seat);
    await waitUntil(fresh.admitAt);
    const withSolution = (solution: string) => mutate("seckill.purchase", { saleId, ticket: fresh.ticket, solution }, shoppers[0]!);
    expect((await withSolution(earlierSolution)).data?.status).toBe("CHALLENGE_REQUIRED");
    expect(await reservations(saleId)).toEqual({ stock: 10, pending: 0, counted: 0 });
    expect((await withSolution(await solveRoomChallenge(fresh.challenge))).data?.status).toBe("QUEUED");
  });
});
