import { afterAll, beforeAll, describe, expect, it } from "vitest";
import superjson from "superjson";
import { connect } from "node:net";
import { createTestEnvironment, startSystem, waitFor, type ChildHandle, type TestEnvironment } from "../testing/harness";
import { createShoppers, type SeededShopper } from "../testing/seed";
import { ensureAdmin } from "../gateway/accounts";
import { signSession } from "../gateway/session";
import { roomKeys, saleKeys } from "../sale-redis/keys";
import { solveRoomChallenge } from "./challenge-solver";

/**
 * The waiting room end to end over real HTTP, against the whole system as `npm start` runs it
 * (front door, web, seckill service, worker): sales made and edited through the admin's tRPC
 * procedures (which warm the room), shoppers joining through room.join, their pages' streams
 * (room.onStatus, server-sent events from the web process) and the one-request purchase. No
 * test-only room helper: the room is what warm-up made of the sale's settings.
 */
let t: TestEnvironment;
let system: ChildHandle & { url: string };
let shoppers: SeededShopper[];
let adminToken: string;

const LISTENERS = 50;

beforeAll(async () => {
  t = await createTestEnvironment("room_stream", { REQUEST_RATE_PER_IP: "0", REDIS_COMMAND_TIMEOUT_MS: "10000" });
  system = await startSystem(t.childEnv, { DEMO_SALE: "0" });
  shoppers = await createShoppers(t.services, LISTENERS + 4, { emailPrefix: "stream" });
  const admin = await ensureAdmin(t.services, { email: "room-ops@example.test", password: "admin-password" });
  adminToken = await signSession({ id: admin.id, role: "ADMIN" }, t.env.SESSION_SECRET, 3600);
});
afterAll(async () => {
  await system?.stop();
  await t?.cleanup();
});

/** A tRPC mutation over HTTP through the front door (superjson on the wire, as the page's client sends it). */
async function mutate<T>(path: string, input: unknown, token: string): Promise<T> {
  const prefix = path.startsWith("room.") || path.startsWith("seckill.") ? "/api/seckill" : "/api/trpc";
  const response = await fetch(`${system.url}${prefix}/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(superjson.serialize(input)),
  });
  const body = (await response.json()) as { result?: { data: Parameters<typeof superjson.deserialize>[0] }; error?: unknown };
  if (!body.result) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(body.error)}`);
  return superjson.deserialize<T>(body.result.data);
}

const saleForm = (overrides: Record<string, unknown>) => ({
  productName: "Queued kettle",
  description: "",
  imageUrl: "/products/kettle.svg",
  originalPriceCents: 9900,
  priceCents: 4900,
  stock: 1,
  unitLimit: 1,
  startsAt: new Date(Date.now() + 60_000),
  endsAt: new Date(Date.now() + 3600_000),
  requireRealName: false,
  minMemberLevel: 0,
  admissionRate: 0,
  arrivalOrder: "RANDOM",
  purchaseChallenge: false,
  ...overrides,
});

interface Waiting {
  status: "WAITING";
  ticket: string;
  epoch: number;
  seat: number;
  position: number;
  admitAt: number;
  ahead: number;
  line: { frontier: number; frontierAt: number; rate: number; joined: number };
  opensAt: number;
  challenge?: unknown;
}
type Answer = Waiting | { status: "SOLD_OUT" } | { status: "ENDED" } | { status: "ROOM_REOPENED"; epoch: number };

/** One page's room.onStatus stream: the EventSource GET tRPC's httpSubscriptionLink sends, read as text. */
class StatusStream {
  readonly answers: Array<{ at: number; answer: Answer }> = [];
  readonly others: string[] = [];
  private readonly controller = new AbortController();
  ended = false;

  constructor(
    readonly shopper: SeededShopper,
    saleId: number,
    ticket: string,
  ) {
    const input = encodeURIComponent(JSON.stringify(superjson.serialize({ saleId, ticket })));
    void fetch(`${system.url}/api/trpc/room.onStatus?input=${input}`, {
      headers: { accept: "text/event-stream", authorization: `Bearer ${shopper.token}` },
      signal: this.controller.signal,
    })
      .then((response) => this.read(response))
      .catch(() => undefined)
      .finally(() => (this.ended = true));
  }

  private async read(response: Response) {
    if (!response.ok || !response.body) throw new Error(`room.onStatus answered ${response.status}`);
    const decoder = new TextDecoder();
    let buffered = "";
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffered.indexOf("\n\n")) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const lines = block.split("\n");
        const event = lines.find((line) => line.startsWith("event: "))?.slice(7);
        const data = lines
          .filter((line) => line.startsWith("data: "))
          .map((line) => line.slice(6))
          .join("\n");
        // Data without an event name is a yielded value; connected, ping and return are the protocol's.
        if (event === undefined && data) this.answers.push({ at: Date.now(), answer: superjson.deserialize<Answer>(JSON.parse(data)) });
        else if (event) this.others.push(event);
      }
    }
  }

  last(): Answer | undefined {
    return this.answers.at(-1)?.answer;
  }

  close() {
    this.controller.abort();
  }
}

const untilEvery = (streams: StatusStream[], count: number, what: string, timeoutMs = 15_000) =>
  waitFor(async () => streams.every((stream) => stream.answers.length >= count), timeoutMs, what);

/**
 * Redis commands about one room while `work` runs, from MONITOR (the local Redis is shared with
 * other checkouts, so INFO commandstats' totals would count their work too): commands naming the
 * room's keys, and TIME from the connections that read the room (the reading's clock).
 */
async function roomCommandsDuring(saleId: number, work: () => Promise<void>): Promise<{ reads: number; clock: number }> {
  const tag = roomKeys(t.env.REDIS_NAMESPACE, saleId).meta;
  const roomSources = new Set<string>();
  const timeBySource = new Map<string, number>();
  let reads = 0;
  const monitor = await monitorRedis(t.env.REDIS_URL, (args, source) => {
    const command = args[0]?.toUpperCase();
    if (command === "TIME") timeBySource.set(source, (timeBySource.get(source) ?? 0) + 1);
    else if (args.includes(tag)) {
      reads++;
      roomSources.add(source);
    }
  });
  try {
    await work();
  } finally {
    monitor.close();
  }
  const clock = [...roomSources].reduce((sum, source) => sum + (timeBySource.get(source) ?? 0), 0);
  return { reads, clock };
}

/**
 * Redis's MONITOR on a plain socket, each line as ioredis's "monitor" event gives it (args, the
 * client's address or "lua"). Not ioredis's own monitor(): under other files' traffic its first
 * lines can beat its switch into monitor mode ("Command queue state error").
 */
async function monitorRedis(url: string, onCommand: (args: string[], source: string) => void): Promise<{ close(): void }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port || 6379), hostname);
  socket.setEncoding("utf8");
  let buffer = "";
  let ready: () => void;
  const started = new Promise<void>((resolve) => (ready = resolve));
  socket.on("data", (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf("\r\n"); end >= 0; end = buffer.indexOf("\r\n")) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (line === "+OK") ready();
      const argIndex = line.indexOf('"');
      if (!line.startsWith("+") || argIndex < 0) continue;
      const reply = line.slice(1);
      const quote = reply.indexOf('"');
      const args = reply
        .slice(quote + 1, -1)
        .split('" "')
        .map((arg) => arg.replace(/\\"/g, '"'));
      const [, source = ""] = reply.slice(reply.indexOf(" ") + 2, quote - 2).split(" ");
      onCommand(args, source);
    }
  });
  socket.on("error", () => {});
  socket.write("MONITOR\r\n");
  await started;
  return { close: () => socket.destroy() };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("room.onStatus over SSE from the web process", () => {
  it("the standing at connect, the draw at the opening, the admin's rate change, SOLD_OUT to every stream within two seconds; one reader per room", async () => {
    // Far enough ahead that joining, connecting and listening end before it, even on a loaded machine.
    const opensAt = Date.now() + 15_000;
    const sale = await mutate<{ id: number; warmedUp: boolean }>(
      "admin.createSale",
      saleForm({ admissionRate: 1, arrivalOrder: "RANDOM", startsAt: new Date(opensAt) }),
      adminToken,
    );
    expect(sale.warmedUp).toBe(true);
    const saleId = sale.id;
    const crowd = shoppers.slice(0, LISTENERS);
    const joined = await Promise.all(crowd.map((shopper) => mutate<Answer>("room.join", { saleId }, shopper.token)));
    for (const answer of joined) expect(answer).toMatchObject({ status: "WAITING", position: 0, admitAt: 0 });

    const streams = crowd.map((shopper, i) => new StatusStream(shopper, saleId, (joined[i] as Waiting).ticket));
    try {
      // At connect: the standing, a place still to be drawn.
      await untilEvery(streams, 1, "every stream's first answer");
      for (const stream of streams)
        expect(stream.last()).toMatchObject({
          status: "WAITING",
          position: 0,
          admitAt: 0,
          seat: (joined[streams.indexOf(stream)] as Waiting).seat,
        });

      // Fifty listeners for three seconds: the room is read about once a second, not fifty times.
      const seconds = 3;
      const work = await roomCommandsDuring(saleId, () => sleep(seconds * 1000));
      // Read at all (so the count below sees the reader), and about once a second.
      expect(work.reads, "room reads while 50 listen").toBeGreaterThanOrEqual(seconds - 1);
      expect(work.reads, "room reads while 50 listen").toBeLessThanOrEqual((seconds + 1) * 2);
      expect(work.clock, "TIME calls of the room's readers").toBeLessThanOrEqual((seconds + 1) * 2);
      for (const stream of streams)
        expect(
          stream.answers.filter(({ at }) => at < opensAt),
          "nothing changed before the opening, nothing sent",
        ).toHaveLength(1);

      // The opening: the draw re-signs every ticket with its place and moment.
      await untilEvery(streams, 2, "the draw on every stream", opensAt - Date.now() + 5000);
      const drawn = streams.map((stream) => stream.answers[1]!);
      for (const { at } of drawn) {
        expect(at).toBeGreaterThanOrEqual(opensAt - 50);
        expect(at - opensAt, "the draw reaches the stream within a second of the opening").toBeLessThan(1000);
      }
      const places = drawn.map(({ answer }) => (answer as Waiting).position);
      expect([...places].sort((a, b) => a - b)).toEqual(Array.from({ length: LISTENERS }, (_, i) => i + 1));
      for (const { answer } of drawn) {
        const waiting = answer as Waiting;
        expect(waiting.ticket).not.toBe((joined[drawn.findIndex((d) => d.answer === answer)] as Waiting).ticket);
        expect(waiting.admitAt).toBeGreaterThanOrEqual(opensAt);
        expect(waiting.line.rate).toBe(1);
      }
      // The last drawn place waits about 50 s at one a second.
      const lastPlace = drawn.find(({ answer }) => (answer as Waiting).position === LISTENERS)!.answer as Waiting;
      expect(lastPlace.admitAt - opensAt).toBeGreaterThan((LISTENERS - 2) * 1000);

      // The admin raises the rate (edit → warm-up → rebase): every stream gets the new line and moment.
      const { stock: _stock, ...terms } = saleForm({ admissionRate: 1000, arrivalOrder: "RANDOM", startsAt: new Date(opensAt) });
      await mutate("admin.updateSale", { ...terms, saleId }, adminToken);
      await untilEvery(streams, 3, "the rate change on every stream", 5000);
      for (const stream of streams) {
        const before = stream.answers[1]!.answer as Waiting;
        const after = stream.answers[2]!.answer as Waiting;
        expect(after).toMatchObject({ status: "WAITING", seat: before.seat, position: before.position, line: { rate: 1000 } });
        expect(after.ticket).not.toBe(before.ticket);
        if (before.position > 5) expect(after.admitAt).toBeLessThan(before.admitAt);
      }
      const lastAfter = streams.map((stream) => stream.answers[2]!.answer as Waiting).find((waiting) => waiting.position === LISTENERS)!;
      expect(lastAfter.admitAt - Date.now()).toBeLessThan(2000);

      // The one unit sells (the seckill service's purchase): every stream hears SOLD_OUT, and ends. It
      // crosses two processes (the seckill service's broadcast, the web's 250 ms look): two seconds
      // leave room for a busy two-core machine running other test files beside this one.
      const buyer = streams.find((stream) => (stream.answers[2]!.answer as Waiting).position === 1)!;
      const pass = buyer.answers[2]!.answer as Waiting;
      await sleep(Math.max(0, pass.admitAt - Date.now()) + 20);
      const bought = await mutate<{ status: string }>("seckill.purchase", { saleId, ticket: pass.ticket }, buyer.shopper.token);
      const soldAt = Date.now();
      expect(bought.status).toBe("QUEUED");
      await untilEvery(streams, 4, "SOLD_OUT on every stream", 5000);
      for (const stream of streams) {
        const { at, answer } = stream.answers[3]!;
        expect(answer).toEqual({ status: "SOLD_OUT" });
        expect(at - soldAt, "SOLD_OUT within two seconds of the sell-out").toBeLessThan(2000);
      }
      await waitFor(async () => streams.every((stream) => stream.ended), 5000, "every stream to end after SOLD_OUT");
      expect(Number(await t.services.redis.get(saleKeys(t.env.REDIS_NAMESPACE, saleId).stock))).toBe(0);
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it("a stream on a ticket of the earlier opening hears ROOM_REOPENED soon after the room is opened again, and ends", async () => {
    const form = saleForm({ admissionRate: 10, arrivalOrder: "ARRIVAL", startsAt: new Date(Date.now() + 60_000) });
    const sale = await mutate<{ id: number }>("admin.createSale", form, adminToken);
    const shopper = shoppers[LISTENERS + 3]!;
    const before = await mutate<Waiting>("room.join", { saleId: sale.id }, shopper.token);
    const stream = new StatusStream(shopper, sale.id, before.ticket);
    try {
      await untilEvery([stream], 1, "the standing at connect");
      expect(stream.last()).toMatchObject({ status: "WAITING", seat: before.seat, epoch: before.epoch });

      const { stock: _stock, ...terms } = form;
      await mutate("admin.updateSale", { ...terms, saleId: sale.id, admissionRate: 0 }, adminToken);
      // A closed room has nothing to say of any seat: no answer until it opens again.
      await sleep(1500);
      expect(stream.answers).toHaveLength(1);
      expect(stream.ended).toBe(false);

      await mutate("admin.updateSale", { ...terms, saleId: sale.id }, adminToken);
      const reopenedAt = Date.now();
      await untilEvery([stream], 2, "ROOM_REOPENED on the stream", 5000);
      const { at, answer } = stream.answers[1]!;
      expect(answer).toMatchObject({ status: "ROOM_REOPENED" });
      expect(answer.status === "ROOM_REOPENED" && answer.epoch).toBeGreaterThan(before.epoch);
      expect(at - reopenedAt, "heard within about a second of the reopen").toBeLessThan(2000);
      await waitFor(async () => stream.ended, 5000, "the stream to end after ROOM_REOPENED");

      // The plain join the page then sends: a seat in the new line, numbered afresh.
      const after = await mutate<Waiting>("room.join", { saleId: sale.id }, shopper.token);
      expect(after).toMatchObject({ status: "WAITING", seat: 1, epoch: (answer as { epoch: number }).epoch });
    } finally {
      stream.close();
    }
  });

  it("refuses a stream for another shopper's ticket, in words", async () => {
    const sale = await mutate<{ id: number }>(
      "admin.createSale",
      saleForm({ admissionRate: 10, arrivalOrder: "ARRIVAL", startsAt: new Date(Date.now() + 2000) }),
      adminToken,
    );
    const mine = await mutate<Waiting>("room.join", { saleId: sale.id }, shoppers[LISTENERS]!.token);
    const input = encodeURIComponent(JSON.stringify(superjson.serialize({ saleId: sale.id, ticket: mine.ticket })));
    const response = await fetch(`${system.url}/api/trpc/room.onStatus?input=${input}`, {
      headers: { accept: "text/event-stream", authorization: `Bearer ${shoppers[LISTENERS + 1]!.token}` },
      signal: AbortSignal.timeout(5000),
    });
    const text = await response.text().catch(() => "");
    expect(text).toMatch(/This ticket is not yours for this sale/);
  });
});

describe("a room sale from the console to a purchase, with no test-only room helper", () => {
  it("admin.createSale with a room and the challenge, warmed by it; room.join; one request buys", async () => {
    const startsAt = new Date(Date.now() + 1500);
    const sale = await mutate<{ id: number; warmedUp: boolean; admissionRate: number; arrivalOrder: string; purchaseChallenge: boolean }>(
      "admin.createSale",
      saleForm({ stock: 3, unitLimit: 2, admissionRate: 20, arrivalOrder: "ARRIVAL", purchaseChallenge: true, startsAt }),
      adminToken,
    );
    expect(sale).toMatchObject({ warmedUp: true, admissionRate: 20, arrivalOrder: "ARRIVAL", purchaseChallenge: true });
    // The sale's stock was warmed with the room, and a token is refused: a room sale is bought with tickets.
    const buyer = shoppers[LISTENERS + 2]!;
    const tokenAnswer = await fetch(`${system.url}/api/seckill/seckill.token`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${buyer.token}` },
      body: JSON.stringify({ json: { saleId: sale.id } }),
    });
    expect(((await tokenAnswer.json()) as { error?: { json: { message: string } } }).error?.json.message).toBe(
      "This sale has a waiting room: join it to buy.",
    );

    const waiting = await mutate<Waiting>("room.join", { saleId: sale.id }, buyer.token);
    expect(waiting).toMatchObject({ status: "WAITING", position: 1, opensAt: startsAt.getTime() });
    expect(waiting.challenge).toBeTruthy();
    const solution = await solveRoomChallenge(waiting.challenge);
    await sleep(Math.max(0, waiting.admitAt - Date.now()) + 20);
    const bought = await mutate<{ status: string }>("seckill.purchase", { saleId: sale.id, ticket: waiting.ticket, solution }, buyer.token);
    expect(bought.status).toBe("QUEUED");
    // The worker turns the reservation into an order in MySQL.
    await waitFor(
      async () => (await t.services.db.order.count({ where: { saleId: sale.id, userId: buyer.id } })) === 1,
      20_000,
      "the order",
    );
    expect(Number(await t.services.redis.get(saleKeys(t.env.REDIS_NAMESPACE, sale.id).stock))).toBe(2);
    // The same ticket and solution again: the ticket is spent.
    expect(
      (await mutate<{ status: string }>("seckill.purchase", { saleId: sale.id, ticket: waiting.ticket, solution }, buyer.token)).status,
    ).toBe("TICKET_USED");
  });
});
