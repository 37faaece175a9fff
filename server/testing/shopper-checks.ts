import http from "node:http";
import { expect } from "vitest";
import { abandonedEventStreams, subscriptionPath, type HeldAttack } from "./attacks";
import { createLiveSale, waitFor } from "./harness";
import { openRoom } from "./room";
import { createShoppers, type SeededShopper } from "./seed";
import { warmUpSale } from "../warmup/warmup";
import { joinRoom } from "../room-join/join";
import type { Services } from "../platform/services";

/**
 * What the front-door attack suites (nginx's and `npm start`'s) check for the honest shopper
 * while an attacker misbehaves from another loopback address: a page and a purchase-token call,
 * each on a fresh connection, answered within a second and not 5xx.
 */
export const SHOPPER_ADDRESS = "127.0.0.1";
export const ANSWER_WITHIN_MS = 1000;

export interface Answer {
  status: number;
  body: string;
  ms: number;
}

export interface Shopper {
  /** The front door's port on 127.0.0.1. */
  port: number;
  /** The shopper's bearer token. */
  token: string;
  /** A live, warmed sale the shopper may ask a purchase token for. */
  saleId: number;
}

/** One call from the shopper's address on a fresh connection; status 0 if nothing came within `withinMs`. */
export function shopperCall(
  shopper: Shopper,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  withinMs = ANSWER_WITHIN_MS,
): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const started = performance.now();
  return new Promise((resolve) => {
    const done = (status: number, text: string) => resolve({ status, body: text, ms: performance.now() - started });
    const request = http.request(
      {
        host: "127.0.0.1",
        port: shopper.port,
        localAddress: SHOPPER_ADDRESS,
        agent: false,
        method,
        path,
        timeout: withinMs,
        headers: {
          authorization: `Bearer ${shopper.token}`,
          ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}),
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => done(response.statusCode ?? 0, text));
        response.on("error", () => done(0, text));
      },
    );
    request.on("timeout", () => {
      request.destroy();
      done(0, `(no answer within ${withinMs} ms)`);
    });
    request.on("error", (error) => done(0, String(error)));
    request.end(payload);
  });
}

/** The shopper loads the storefront and asks for a purchase token: both answered, not 5xx, within a second. */
export async function expectShopperServed(shopper: Shopper, when: string) {
  const [page, token] = await Promise.all([
    shopperCall(shopper, "GET", "/"),
    shopperCall(shopper, "POST", "/api/seckill/seckill.token", { json: { saleId: shopper.saleId } }),
  ]);
  expect(page.status, `${when}: GET / answered ${page.status} ${page.body.slice(0, 200)}`).toBe(200);
  expect(page.ms, `${when}: GET / took`).toBeLessThan(ANSWER_WITHIN_MS);
  expect(token.status, `${when}: seckill.token answered ${token.status} ${token.body.slice(0, 200)}`).toBe(200);
  expect(token.body, when).toContain('"status":"ISSUED"');
  expect(token.ms, `${when}: seckill.token took`).toBeLessThan(ANSWER_WITHIN_MS);
}

export const countOf = (statuses: (number | null)[], status: number | null) => statuses.filter((s) => s === status).length;
export const settled = (attack: HeldAttack) => attack.statuses().every((s) => s !== null);

/** The JSON body of a raw HTTP answer (attacks.ts keeps its bytes as latin1 text). */
export function bodyOf(answer: string): unknown {
  return JSON.parse(Buffer.from(answer.slice(answer.indexOf("\r\n\r\n") + 4), "latin1").toString("utf8"));
}

/** The attack suites' scene: a shopper and an attacker, a live sale, and a live sale with a room open. */
export interface AttackScene {
  shopper: SeededShopper;
  attacker: SeededShopper;
  saleId: number;
  roomSaleId: number;
}

export async function setUpAttackScene(services: Services): Promise<AttackScene> {
  const [shopper, attacker] = await createShoppers(services, 2, { emailPrefix: "front-door" });
  const { saleId } = await createLiveSale(services, { stock: 100 });
  await warmUpSale(services, saleId);
  const { saleId: roomSaleId } = await createLiveSale(services, { stock: 10 });
  await warmUpSale(services, roomSaleId);
  await openRoom(services, roomSaleId, { rate: 1, order: "ARRIVAL" });
  return { shopper: shopper!, attacker: attacker!, saleId, roomSaleId };
}

/** The room.onStatus path of a fresh seat of `who` in the scene's room. */
export async function roomStreamPath(services: Services, who: SeededShopper, roomSaleId: number): Promise<string> {
  const waiting = await joinRoom(services, { userId: who.id, saleId: roomSaleId });
  if (waiting.status !== "WAITING") throw new Error(`shopper ${who.id} could not join the room: ${waiting.status}`);
  return subscriptionPath("room.onStatus", { saleId: roomSaleId, ticket: waiting.ticket });
}

/** The shopper's own stream opens within a second while the attacker holds its streams. */
export async function expectShopperStreamOpens(baseUrl: string, services: Services, scene: AttackScene) {
  const own = await abandonedEventStreams(baseUrl, {
    count: 1,
    from: SHOPPER_ADDRESS,
    path: await roomStreamPath(services, scene.shopper, scene.roomSaleId),
    headers: { authorization: `Bearer ${scene.shopper.token}` },
  });
  try {
    await waitFor(async () => settled(own), ANSWER_WITHIN_MS, "the shopper's stream");
    expect(own.statuses()).toEqual([200]);
  } finally {
    own.leave();
  }
}
