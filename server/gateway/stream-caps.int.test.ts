import { afterAll, beforeAll, describe, expect, it } from "vitest";
import superjson from "superjson";
import { createConnection } from "node:net";
import { once } from "node:events";
import {
  buyAsShopper,
  createLiveSale,
  createTestEnvironment,
  startWeb,
  waitFor,
  type ChildHandle,
  type TestEnvironment,
} from "../testing/harness";
import { createShoppers, type SeededShopper } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { joinRoom } from "../room-join/join";
import { bucketKeys } from "../sale-redis/keys";
import { STREAM_RETRY_AFTER_SECONDS } from "./stream-caps";

/**
 * The caps of open streams over real HTTP against real web processes (Next behind the server
 * that owns the socket, as `npm start` runs it): room.onStatus and seckill.onResult, the
 * server-sent events a page holds open. One shopper past STREAMS_PER_SHOPPER, many shoppers of
 * one address past STREAMS_PER_IP: 429 at once, in the caller's language, with Retry-After.
 * Closed, every slot comes back; a stream ends by itself with its sale, and at its longest life.
 */
let t: TestEnvironment;
/** caps 2 per shopper, 5 per address; the address is the last X-Forwarded-For entry (one trusted hop) */
let web: ChildHandle & { url: string };
/** 1 stream per shopper, each living at most 2 s */
let shortLived: ChildHandle & { url: string };
let shoppers: SeededShopper[];

const PER_SHOPPER = 2;
const PER_IP = 5;

beforeAll(async () => {
  t = await createTestEnvironment("stream_caps", { REQUEST_RATE_PER_IP: "0", REDIS_COMMAND_TIMEOUT_MS: "10000" });
  [web, shortLived] = await Promise.all([
    startWeb(t.childEnv, { STREAMS_PER_SHOPPER: String(PER_SHOPPER), STREAMS_PER_IP: String(PER_IP), TRUSTED_PROXY_HOPS: "1" }),
    startWeb(t.childEnv, { STREAMS_PER_SHOPPER: "1", STREAM_MAX_LIFETIME_SECONDS: "2" }),
  ]);
  shoppers = await createShoppers(t.services, 32, { emailPrefix: "streams" });
});
afterAll(async () => {
  await Promise.all([web?.stop(), shortLived?.stop()]);
  await t?.cleanup();
});

interface OpenOptions {
  base?: string;
  address?: string;
  lang?: string;
}

/** One page's stream: the EventSource GET tRPC's httpSubscriptionLink sends, its events read as they come. */
class Stream {
  readonly values: unknown[] = [];
  readonly events: string[] = [];
  private readonly controller = new AbortController();
  /** the response's head */
  readonly opened: Promise<Response>;
  /** resolves when the body has ended (or the request failed) */
  readonly ended: Promise<void>;
  done = false;

  constructor(path: string, input: unknown, shopper: SeededShopper, options: OpenOptions = {}) {
    const query = encodeURIComponent(JSON.stringify(superjson.serialize(input)));
    const headers: Record<string, string> = {
      accept: "text/event-stream",
      authorization: `Bearer ${shopper.token}`,
      "accept-language": options.lang ?? "en",
    };
    if (options.address) headers["x-forwarded-for"] = options.address;
    this.opened = fetch(`${options.base ?? web.url}/api/trpc/${path}?input=${query}`, { headers, signal: this.controller.signal });
    this.ended = this.opened
      .then((response) => (response.status === 200 ? this.read(response) : undefined))
      .catch(() => undefined)
      .finally(() => (this.done = true));
  }

  private async read(response: Response) {
    const decoder = new TextDecoder();
    let buffered = "";
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffered.indexOf("\n\n")) >= 0) {
        const lines = buffered.slice(0, end).split("\n");
        buffered = buffered.slice(end + 2);
        const event = lines.find((line) => line.startsWith("event: "))?.slice(7);
        const data = lines
          .filter((line) => line.startsWith("data: "))
          .map((line) => line.slice(6))
          .join("\n");
        if (event === undefined && data) this.values.push(superjson.deserialize(JSON.parse(data)));
        else if (event) this.events.push(event);
      }
    }
  }

  close() {
    this.controller.abort();
  }
}

/** A refused stream's answer: its status, Retry-After and the message tRPC's client shows. */
async function refusalOf(stream: Stream) {
  const response = await stream.opened;
  const body = (await response.json()) as { error: { json: { message: string; data: { code: string; httpStatus: number } } } };
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    message: body.error.json.message,
    code: body.error.json.data.code,
  };
}

const firstValue = (stream: Stream, what: string) => waitFor(async () => stream.values.length > 0 || stream.done, 15_000, what);

async function roomSale(endsInMs = 3600_000) {
  const { saleId } = await createLiveSale(t.services, {
    stock: 10,
    admissionRate: 100,
    arrivalOrder: "ARRIVAL",
    endsAt: new Date(Date.now() + endsInMs),
  });
  await warmUpSale(t.services, saleId);
  return saleId;
}

async function ticketOf(saleId: number, shopper: SeededShopper): Promise<string> {
  const answer = await joinRoom(t.services, { userId: shopper.id, saleId });
  if (answer.status !== "WAITING") throw new Error(`room.join answered ${answer.status}`);
  return answer.ticket;
}

describe("caps of open streams per web process", () => {
  it("refuses one shopper's stream past the per-shopper cap and many shoppers' past the address's, then opens again once they are closed", async () => {
    const saleId = await roomSale();
    const crowd = shoppers.slice(0, 6);
    const tickets = await Promise.all(crowd.map((shopper) => ticketOf(saleId, shopper)));
    const status = (i: number, options: OpenOptions = {}) =>
      new Stream("room.onStatus", { saleId, ticket: tickets[i]! }, crowd[i]!, options);
    const open: Stream[] = [];
    try {
      // The first shopper, one tab after another: two streams, the third refused at once.
      open.push(status(0), status(0));
      for (const stream of open) {
        await firstValue(stream, "an admitted stream's first answer");
        expect(stream.values[0]).toMatchObject({ status: "WAITING" });
      }
      const third = status(0, { lang: "zh-CN" });
      expect(await refusalOf(third)).toEqual({
        status: 429,
        retryAfter: String(STREAM_RETRY_AFTER_SECONDS),
        code: "TOO_MANY_REQUESTS",
        message: `您的账号打开了过多正在接收实时更新的本店页面。请关闭一个，或 ${STREAM_RETRY_AFTER_SECONDS} 秒后再试。`,
      });

      // Three more shoppers from the same address fill its five; a fifth shopper there is refused.
      open.push(status(1), status(2), status(3));
      await Promise.all(open.map((stream) => firstValue(stream, "every admitted stream's first answer")));
      expect(open.every((stream) => stream.values.length === 1)).toBe(true);
      expect(await refusalOf(status(4))).toMatchObject({
        status: 429,
        retryAfter: String(STREAM_RETRY_AFTER_SECONDS),
        message: expect.stringMatching(/^Too many live updates are open from your network/),
      });
      // The same shopper from another address is not held to this one's count.
      const elsewhere = status(4, { address: "198.51.100.20" });
      open.push(elsewhere);
      await firstValue(elsewhere, "a stream from another address");
      expect(elsewhere.values[0]).toMatchObject({ status: "WAITING" });

      // Every page goes away: every slot comes back, and the same six open again (the same two refusals after).
      for (const stream of open.splice(0)) stream.close();
      await waitFor(
        async () => {
          const probe = status(0);
          const admitted = (await probe.opened).status === 200;
          if (admitted) open.push(probe);
          return admitted;
        },
        10_000,
        "a stream admitted again once all were closed",
      );
      open.push(status(0), status(1), status(2), status(3));
      await Promise.all(open.map((stream) => firstValue(stream, "the streams opened again")));
      expect(open.map((stream) => stream.values[0])).toEqual(Array(5).fill(expect.objectContaining({ status: "WAITING" })));
      expect((await refusalOf(status(0, { address: "198.51.100.21" }))).status, "the shopper's cap, after the reopening").toBe(429);
      expect((await refusalOf(status(5))).status, "the address's cap, after the reopening").toBe(429);
    } finally {
      for (const stream of open) stream.close();
    }
  });

  it("a room stream ends by itself when its sale ends: ENDED, then tRPC's closing event, and its slot is free", async () => {
    const saleId = await roomSale(4000);
    const shopper = shoppers[10]!;
    const ticket = await ticketOf(saleId, shopper);
    const stream = new Stream("room.onStatus", { saleId, ticket }, shopper, { address: "198.51.100.30" });
    try {
      await firstValue(stream, "the standing at connect");
      expect(stream.values[0]).toMatchObject({ status: "WAITING" });
      await waitFor(async () => stream.done, 10_000, "the stream to end with its sale");
      expect(stream.values.at(-1)).toEqual({ status: "ENDED" });
      expect(stream.events.at(-1)).toBe("return");
      // Its slot came back: the same shopper opens two more from that address.
      const again = [0, 1].map(() => new Stream("room.onStatus", { saleId, ticket }, shopper, { address: "198.51.100.30" }));
      try {
        expect((await Promise.all(again.map((s) => s.opened))).map((response) => response.status)).toEqual([200, 200]);
      } finally {
        for (const s of again) s.close();
      }
    } finally {
      stream.close();
    }
  });

  it("a stream is cut at its longest life, without tRPC's closing event (the page's EventSource reconnects), and its slot is free", async () => {
    const saleId = await roomSale();
    const shopper = shoppers[11]!;
    const ticket = await ticketOf(saleId, shopper);
    const open = () => new Stream("room.onStatus", { saleId, ticket }, shopper, { base: shortLived.url });
    const first = open();
    try {
      await firstValue(first, "the standing at connect");
      const openedAt = Date.now();
      expect((await open().opened).status, "the shopper's one stream is open").toBe(429);
      await waitFor(async () => first.done, 5000, "the stream's longest life to pass");
      expect(Date.now() - openedAt).toBeGreaterThanOrEqual(1000);
      expect(first.events).not.toContain("return");
      expect(first.values).toEqual([expect.objectContaining({ status: "WAITING" })]);
      const next = open();
      try {
        await firstValue(next, "the reconnected stream's answer");
        expect(next.values[0]).toMatchObject({ status: "WAITING" });
      } finally {
        next.close();
      }
    } finally {
      first.close();
    }
  });
});

/**
 * Redis commands naming one stock bucket's keys while `work` runs, from MONITOR (the local Redis
 * is shared with other checkouts, so INFO commandstats' totals would count their work too). Read
 * off a plain socket: ioredis's monitor mode loses track of its replies on a busy Redis.
 */
async function bucketCommandsDuring(saleId: number, work: () => Promise<void>): Promise<number> {
  const keys = bucketKeys(t.env.REDIS_NAMESPACE, saleId, 0);
  const quoted = [keys.orders, keys.pending].map((key) => `"${key}"`);
  const url = new URL(t.env.REDIS_URL);
  const socket = createConnection({ host: url.hostname, port: Number(url.port || 6379) });
  await once(socket, "connect");
  let commands = 0;
  let buffered = "";
  let monitoring = false;
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf("\r\n")) >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      if (line === "+OK") monitoring = true;
      else if (quoted.some((key) => line.includes(key))) commands++;
    }
  });
  socket.write("MONITOR\r\n");
  await waitFor(async () => monitoring, 5000, "MONITOR to start");
  try {
    await work();
  } finally {
    socket.destroy();
  }
  return commands;
}

describe("waiting costs nothing but a timer", () => {
  it("seckill.onResult: twenty queued results cost Redis what one does", async () => {
    const { saleId } = await createLiveSale(t.services, { stock: 50, unitLimit: 1 });
    await warmUpSale(t.services, saleId);
    const buyers = shoppers.slice(12, 32);
    // No worker runs: every reservation stays QUEUED for as long as the test looks.
    const reservations = await Promise.all(
      buyers.map(async (buyer) => {
        const answer = await buyAsShopper(t.services, { userId: buyer.id, saleId });
        if (answer.status !== "QUEUED") throw new Error(`the purchase answered ${answer.status}`);
        return answer.reservationId;
      }),
    );
    const open = (i: number) =>
      new Stream("seckill.onResult", { reservationId: reservations[i]! }, buyers[i]!, { address: `198.51.100.${100 + i}` });
    const streams = [open(0)];
    try {
      await firstValue(streams[0]!, "the first result");
      const seconds = 3;
      const alone = await bucketCommandsDuring(saleId, () => new Promise((resolve) => setTimeout(resolve, seconds * 1000)));
      for (let i = 1; i < buyers.length; i++) streams.push(open(i));
      await Promise.all(streams.map((stream) => firstValue(stream, "every stream's first result")));
      expect(streams.map((stream) => stream.values[0])).toEqual(Array(buyers.length).fill({ status: "QUEUED" }));
      const crowd = await bucketCommandsDuring(saleId, () => new Promise((resolve) => setTimeout(resolve, seconds * 1000)));
      // Looked at all (so the count sees the watch), and no more often with twenty than with one.
      expect(alone, "commands while one stream waits").toBeGreaterThanOrEqual(seconds);
      expect(crowd, `commands while ${buyers.length} streams wait (one alone: ${alone})`).toBeLessThanOrEqual(alone + 4);
      expect(streams.every((stream) => !stream.done)).toBe(true);
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});
