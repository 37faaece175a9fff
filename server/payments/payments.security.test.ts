import http from "node:http";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestEnvironment,
  placeOrders,
  createLiveSale,
  startSeckillService,
  startSystem,
  startWeb,
  startWorker,
  waitFor,
  type ChildHandle,
  type TestEnvironment,
} from "../testing/harness";
import { createShoppers, type SeededShopper } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { DEV_SANDBOX_PAY_APP_ID, DEV_SANDBOX_PAY_KEY, DEV_SESSION_SECRET } from "../platform/env";
import { paymentNotifyJobId } from "../queues/queues";
import { freePort } from "../lib/net";
import { newOutTradeNo } from "./pay";
import { sandboxNotifyFields } from "./sandbox-gateway";
import { signed } from "./signature";

/**
 * Issue #26's payment findings, attacked over real HTTP: production mode on demo settings, the
 * cashier acting for anyone, notify and return URLs taken from a request, stack traces in error
 * bodies, a processed notify answered `fail`, and an unbounded, unlimited notify endpoint.
 */

/** Real secrets, as a production deployment has them. */
const SESSION_SECRET = randomBytes(32).toString("hex");
const SANDBOX_PAY_KEY = randomBytes(32).toString("hex");
const SANDBOX_PAY_APP_ID = `sec-${randomBytes(3).toString("hex")}`;
const NOTIFY_PER_IP = 20;

/** Production mode with the sandbox turned off, and the public demo keys (unused, hence allowed). */
let off: TestEnvironment;
/** Production mode with the sandbox enabled on real keys. */
let on: TestEnvironment;

beforeAll(async () => {
  [off, on] = await Promise.all([
    createTestEnvironment("sec_pay_off", {
      SESSION_SECRET,
      PAYMENT_PROVIDERS: "",
      SANDBOX_PAY_KEY: DEV_SANDBOX_PAY_KEY,
      SANDBOX_PAY_APP_ID: DEV_SANDBOX_PAY_APP_ID,
    }),
    createTestEnvironment("sec_pay_on", {
      SESSION_SECRET,
      PAYMENT_PROVIDERS: "sandbox",
      SANDBOX_PAY_KEY,
      SANDBOX_PAY_APP_ID,
      NOTIFY_RATE_PER_IP: String(NOTIFY_PER_IP),
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([off?.cleanup(), on?.cleanup()]);
});

async function trpc(base: string, path: string, input: unknown, bearer?: string) {
  const response = await fetch(`${base}/api/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify({ json: input }),
  });
  return { status: response.status, text: await response.text() };
}

let batch = 0;
/** Shoppers, each with one unpaid order of a live sale. */
async function unpaidOrders(t: TestEnvironment, n: number) {
  const { saleId } = await createLiveSale(t.services, {
    productName: "Security lantern",
    priceCents: 9900,
    originalPriceCents: 19900,
    stock: n,
  });
  await warmUpSale(t.services, saleId);
  const shoppers = await createShoppers(t.services, n, { emailPrefix: `secpay${batch++}` });
  const orders = await placeOrders(
    t.services,
    saleId,
    shoppers.map((s) => s.id),
  );
  return orders.map((order, i) => ({ ...order, shopper: shoppers[i]! }));
}

/** order.pay over HTTP as the order's shopper: our trade number, and the cashier's signed request. */
async function pay(base: string, order: { orderId: number; shopper: SeededShopper }) {
  const answer = await trpc(base, "order.pay", { orderId: order.orderId }, order.shopper.token);
  expect(answer.status, answer.text).toBe(200);
  const { outTradeNo, action } = (
    JSON.parse(answer.text) as { result: { data: { json: { outTradeNo: string; action: { kind: string; url: string } } } } }
  ).result.data.json;
  expect(action.kind).toBe("redirect");
  return { outTradeNo, params: Object.fromEntries(new URL(action.url, base).searchParams) };
}

function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields),
  });
}

const cookieOf = (shopper: SeededShopper) => ({ cookie: `fs_session=${shopper.token}` });

/** What a notification could change about an order. */
async function snapshot(t: TestEnvironment, orderId: number) {
  const { payments, ...order } = await t.services.db.order.findUniqueOrThrow({
    where: { id: orderId },
    select: { status: true, updatedAt: true, payments: true },
  });
  const notifications = await t.services.db.paymentNotification.count({ where: { paymentId: { in: payments.map((p) => p.id) } } });
  return { ...order, payment: payments[0] ?? null, notifications };
}

/** A startup's refusal: the exit code and output, from the harness's error; null if it started. */
async function refusalOf(start: () => Promise<ChildHandle>): Promise<{ code: number; output: string } | null> {
  let child: ChildHandle;
  try {
    child = await start();
  } catch (error) {
    const message = (error as Error).message;
    const code = /\(exit code (-?\d+)\)/.exec(message)?.[1];
    return { code: code === undefined ? Number.NaN : Number(code), output: message };
  }
  await child.stop();
  return null;
}

describe("production mode refuses demo secrets", () => {
  const production = {
    NODE_ENV: "production",
    DEMO_SALE: "0",
    SESSION_SECRET,
    PAYMENT_PROVIDERS: "sandbox",
    SANDBOX_PAY_KEY,
    SANDBOX_PAY_APP_ID,
  };
  const demoSecrets: [variable: string, setting: Record<string, string>][] = [
    ["SESSION_SECRET", { SESSION_SECRET: DEV_SESSION_SECRET }],
    ["SANDBOX_PAY_KEY", { SANDBOX_PAY_KEY: DEV_SANDBOX_PAY_KEY }],
    ["SANDBOX_PAY_APP_ID", { SANDBOX_PAY_APP_ID: DEV_SANDBOX_PAY_APP_ID }],
  ];
  const processes: [name: string, start: (extra: Record<string, string>) => Promise<ChildHandle>][] = [
    ["npm start", (extra) => startSystem(off.childEnv, extra)],
    ["web", (extra) => startWeb(off.childEnv, extra)],
    ["the seckill service", (extra) => startSeckillService(off.childEnv, extra)],
    ["the worker", (extra) => startWorker(off.childEnv, extra)],
  ];

  it.each(processes)("%s exits non-zero with one line naming each demo secret", async (_, start) => {
    for (const [variable, setting] of demoSecrets) {
      const refusal = await refusalOf(() => start({ ...production, ...setting }));
      expect(refusal, `started on the demo ${variable}`).not.toBeNull();
      expect(refusal!.code, refusal!.output).toBeGreaterThan(0);
      expect(
        refusal!.output.split("\n").filter((line) => line.includes(variable)),
        refusal!.output,
      ).not.toHaveLength(0);
      // A readable line, not a stack trace.
      expect(refusal!.output).not.toMatch(/^\s+at \S/m);
    }
  });
});

describe("a provider listed without its keys", () => {
  const processes: [name: string, start: (extra: Record<string, string>) => Promise<ChildHandle>][] = [
    ["web", (extra) => startWeb(off.childEnv, extra)],
    ["the seckill service", (extra) => startSeckillService(off.childEnv, extra)],
    ["the worker", (extra) => startWorker(off.childEnv, extra)],
  ];
  it.each(processes)("%s exits non-zero with one line naming the missing variable", async (_, start) => {
    const refusal = await refusalOf(() =>
      start({ PAYMENT_PROVIDERS: "sandbox,alipay", ALIPAY_APP_ID: "2021000000000001", ALIPAY_PUBLIC_KEY: "" }),
    );
    expect(refusal).not.toBeNull();
    expect(refusal!.code, refusal!.output).toBeGreaterThan(0);
    expect(refusal!.output).toMatch(
      /^Invalid environment: ALIPAY_PRIVATE_KEY: is required when PAYMENT_PROVIDERS lists alipay; ALIPAY_PUBLIC_KEY: is required when PAYMENT_PROVIDERS lists alipay$/m,
    );
    expect(refusal!.output).not.toMatch(/^\s+at \S/m);
  });
});

describe("production mode with the sandbox not enabled", () => {
  let system: ChildHandle & { url: string };
  beforeAll(async () => {
    system = await startSystem(off.childEnv, { NODE_ENV: "production", DEMO_SALE: "0" });
  });
  afterAll(() => system?.stop());

  it("refuses a notify forged with the public demo key: the order stays unpaid", async () => {
    const [order] = await unpaidOrders(off, 1);
    // Whatever order.pay answers, a payment row may exist (made while the sandbox was on).
    await trpc(system.url, "order.pay", { orderId: order!.orderId }, order!.shopper.token);
    const payment = await off.services.db.payment.upsert({
      where: { orderId_provider: { orderId: order!.orderId, provider: "sandbox" } },
      create: { orderId: order!.orderId, provider: "sandbox", outTradeNo: newOutTradeNo(), amountCents: 9900 },
      update: {},
    });
    const forged = sandboxNotifyFields(
      { SANDBOX_PAY_KEY: DEV_SANDBOX_PAY_KEY, SANDBOX_PAY_APP_ID: DEV_SANDBOX_PAY_APP_ID },
      { outTradeNo: payment.outTradeNo, tradeNo: "FORGED1", totalAmount: "99.00" },
    );
    const answer = await postForm(`${system.url}/api/payments/notify`, forged);
    expect(await answer.text()).not.toBe("success");
    expect(await snapshot(off, order!.orderId)).toMatchObject({
      status: "WAIT_PAY",
      payment: { status: "CREATED", providerTradeNo: null },
      notifications: 0,
    });
  });

  it("has no provider: order.pay says payments are not set up, and so does the cashier", async () => {
    const [order] = await unpaidOrders(off, 1);
    const answer = await trpc(system.url, "order.pay", { orderId: order!.orderId }, order!.shopper.token);
    expect(answer.status).toBe(412);
    expect(answer.text).toContain("Payments are not set up on this shop");
    expect(await off.services.db.payment.count({ where: { orderId: order!.orderId } })).toBe(0);

    // A checkout signed with the demo key, as anyone can make one.
    const checkout = signed(
      {
        app_id: DEV_SANDBOX_PAY_APP_ID,
        out_trade_no: newOutTradeNo(),
        total_amount: "99.00",
        subject: "Forged",
        notify_url: `${system.url}/api/payments/notify`,
        return_url: "/orders",
        time_expire: new Date(Date.now() + 600_000).toISOString(),
      },
      DEV_SANDBOX_PAY_KEY,
    );
    const page = await fetch(`${system.url}/pay/sandbox?${new URLSearchParams(checkout)}`, { headers: cookieOf(order!.shopper) });
    const html = await page.text();
    expect(html).toContain("Payments are not set up on this shop");
    expect(html).not.toContain("/pay/sandbox/confirm");
    const confirm = await postForm(`${system.url}/pay/sandbox/confirm`, checkout, { ...cookieOf(order!.shopper), origin: system.url });
    expect(confirm.status).toBeGreaterThanOrEqual(400);
    expect(await off.services.queues.paymentNotify.getJobCounts("waiting", "delayed", "active", "completed")).toEqual({
      waiting: 0,
      delayed: 0,
      active: 0,
      completed: 0,
    });
  });

  it("answers an unexpected error with a generic message: no stack, no path", async () => {
    const leaks = (body: string) => [
      body.includes('"stack"'),
      body.includes(process.cwd()),
      /\bat \S+ \(/.test(body),
      /\.(ts|js):\d+/.test(body),
    ];
    const clean = [false, false, false, false];
    const { db } = off.services;
    await db.$executeRawUnsafe("RENAME TABLE products TO products_gone");
    try {
      const broken = await fetch(`${system.url}/api/trpc/sale.list`);
      const body = await broken.text();
      expect(broken.status).toBe(500);
      expect(leaks(body), body).toEqual(clean);
      expect(body).toContain("Something went wrong on our side");
    } finally {
      await db.$executeRawUnsafe("RENAME TABLE products_gone TO products");
    }
    // Bad input through the front door to the seckill service, and to one started as tests start
    // it (NODE_ENV=test, not development): tRPC adds stacks to error bodies unless told not to.
    const seckill = await startSeckillService(off.childEnv);
    try {
      for (const base of [system.url, seckill.url]) {
        const answer = await fetch(`${base}/api/seckill/seckill.token`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"json":{"saleId":"x"}}',
        });
        const body = await answer.text();
        expect(answer.status).toBeGreaterThanOrEqual(400);
        expect(leaks(body), body).toEqual(clean);
      }
    } finally {
      await seckill.stop();
    }
  });
});

describe("production mode with the sandbox enabled", () => {
  let web: ChildHandle & { url: string };
  let worker: ChildHandle;
  beforeAll(async () => {
    web = await startWeb(on.childEnv);
    worker = await startWorker(on.childEnv, { NODE_ENV: "production", PUBLIC_BASE_URL: web.url });
  });
  afterAll(async () => {
    await Promise.all([worker?.stop(), web?.stop()]);
  });

  /** The web process's peak resident memory so far, in bytes (Linux's VmHWM). */
  const peakMemory = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${web.process.pid}/status`, "utf8"))![1]) * 1024;

  /**
   * POSTs `total` bytes in 1 MB writes, stopping once answered; how much had gone out by then.
   * Status 0 is a connection the server closed under the client's writes: a close with bytes
   * unread resets it, and the reset can reach the client before the 413 it follows is read.
   */
  function postHuge(url: string, total: number, declareLength: boolean) {
    const { hostname, port, pathname } = new URL(url);
    return new Promise<{ status: number; sentWhenAnswered: number; ms: number }>((resolve, reject) => {
      const started = Date.now();
      const chunk = Buffer.alloc(1 << 20, "a");
      let sent = 0;
      let answered = false;
      const req = http.request({
        hostname,
        port,
        path: pathname,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...(declareLength ? { "content-length": total } : {}) },
      });
      req.on("response", (res) => {
        answered = true;
        const sentWhenAnswered = sent;
        res.resume();
        res.on("end", () => {
          resolve({ status: res.statusCode!, sentWhenAnswered, ms: Date.now() - started });
          req.destroy();
        });
      });
      req.on("error", (error: NodeJS.ErrnoException) => {
        if (answered) return;
        if (error.code === "EPIPE" || error.code === "ECONNRESET") resolve({ status: 0, sentWhenAnswered: sent, ms: Date.now() - started });
        else reject(error);
      });
      const pump = () => {
        while (!answered && sent < total) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once("drain", pump);
            return;
          }
        }
        if (!answered) req.end();
      };
      pump();
    });
  }

  it("refuses a 50 MB notify body with 413, quickly, without reading it into memory", async () => {
    const notifyUrl = `${web.url}/api/payments/notify`;
    await postForm(notifyUrl, { hello: "world" }); // the route is loaded
    const before = peakMemory();
    const total = 50 * 1024 * 1024;
    for (const declareLength of [false, true]) {
      let answer = await postHuge(notifyUrl, total, declareLength);
      for (let tries = 1; answer.status === 0 && tries < 5; tries++) answer = await postHuge(notifyUrl, total, declareLength);
      expect(answer.status).toBe(413);
      expect(answer.ms).toBeLessThan(5000);
      expect(answer.sentWhenAnswered).toBeLessThan(total);
    }
    expect(peakMemory() - before).toBeLessThan(20 * 1024 * 1024);
  });

  it("the cashier acts only for the order's own shopper: 401 without a session, 404 for another's", async () => {
    const [mine, theirs] = await unpaidOrders(on, 2);
    const { outTradeNo, params } = await pay(web.url, mine!);
    const confirmUrl = `${web.url}/pay/sandbox/confirm`;
    const origin = { origin: web.url };

    expect((await postForm(confirmUrl, params, origin)).status).toBe(401);
    // The shopper's own cookie, sent by another site's form: refused before anything is read.
    expect((await postForm(confirmUrl, params, { origin: "https://evil.example", ...cookieOf(mine!.shopper) })).status).toBe(403);
    expect([403, 404]).toContain((await postForm(confirmUrl, params, { ...origin, ...cookieOf(theirs!.shopper) })).status);
    const page = await (
      await fetch(`${web.url}/pay/sandbox?${new URLSearchParams(params)}`, { headers: cookieOf(theirs!.shopper) })
    ).text();
    expect(page).not.toContain("/pay/sandbox/confirm");
    expect(await on.services.queues.paymentNotify.getJob(paymentNotifyJobId(outTradeNo))).toBeUndefined();
    expect((await snapshot(on, mine!.orderId)).status).toBe("WAIT_PAY");

    // The shopper's own Confirm pays, through the worker's notify to this shop.
    const own = await postForm(confirmUrl, params, { ...origin, ...cookieOf(mine!.shopper) });
    expect(own.status).toBe(303);
    expect(own.headers.get("location")).toBe(`/orders?order=${mine!.orderId}`);
    await waitFor(async () => (await snapshot(on, mine!.orderId)).status === "PAID", 30_000, "the order to be paid");
  });

  it("a checkout naming a foreign notify_url or return_url cannot make the worker POST elsewhere", async () => {
    const port = await freePort();
    const received: string[] = [];
    const elsewhere = http.createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      req.resume();
      res.end("success");
    });
    await new Promise<void>((resolve) => elsewhere.listen(port, "127.0.0.1", resolve));
    try {
      const foreign = `http://127.0.0.1:${port}/steal`;
      const [forged, queued] = await unpaidOrders(on, 2);
      const checkout = await pay(web.url, forged!);
      const confirm = (fields: Record<string, string>) =>
        postForm(`${web.url}/pay/sandbox/confirm`, fields, { origin: web.url, ...cookieOf(forged!.shopper) });

      // Changed after the merchant signed it: refused.
      for (const change of [{ notify_url: foreign }, { return_url: "//evil.example/" }] as Record<string, string>[]) {
        expect((await confirm({ ...checkout.params, ...change })).status).toBe(400);
      }
      // Signed with the merchant's key, yet naming another address (what the public demo key allowed).
      for (const change of [{ notify_url: foreign }, { return_url: "/\\evil.example/" }, { return_url: "https://evil.example/" }] as Record<
        string,
        string
      >[]) {
        const { sign: _sign, sign_type: _type, ...fields } = checkout.params;
        const answer = await confirm(signed({ ...fields, ...change }, SANDBOX_PAY_KEY));
        const location = answer.headers.get("location") ?? "";
        expect(location === "" || /^\/(?![/\\])/.test(location), location).toBe(true);
        expect(location).not.toContain("evil.example");
      }

      // A notify job carrying an address of its own (one added by hand): delivered to this shop only.
      const { outTradeNo } = await pay(web.url, queued!);
      const jobId = paymentNotifyJobId(outTradeNo);
      await on.services.queues.paymentNotify.add(
        "payment-notify",
        { notifyUrl: foreign, outTradeNo, tradeNo: `SBXT${outTradeNo.slice(0, 12)}`, totalAmount: "99.00" } as never,
        { jobId },
      );
      await waitFor(
        async () => (await snapshot(on, queued!.orderId)).status === "PAID",
        30_000,
        "the order paid through this shop's notify",
      );
      // Every notify job the worker holds is finished: nothing more can go out.
      await waitFor(
        async () => {
          const counts = await on.services.queues.paymentNotify.getJobCounts("waiting", "active", "delayed");
          return (counts.waiting ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) === 0;
        },
        30_000,
        "the notify jobs to settle",
      );
      expect(received).toEqual([]);
      expect((await snapshot(on, forged!.orderId)).status).toBe("WAIT_PAY");
    } finally {
      await new Promise((resolve) => elsewhere.close(resolve));
    }
  });

  it("a repeated notify is answered `success` and changes nothing", async () => {
    const [order] = await unpaidOrders(on, 1);
    const { outTradeNo } = await pay(web.url, order!);
    const body = sandboxNotifyFields(on.env, { outTradeNo, tradeNo: `SBXR${outTradeNo.slice(0, 12)}`, totalAmount: "99.00" });
    const notifyUrl = `${web.url}/api/payments/notify`;
    expect(await (await postForm(notifyUrl, body)).text()).toBe("success");
    const paid = await snapshot(on, order!.orderId);
    expect(paid).toMatchObject({ status: "PAID", payment: { status: "SUCCEEDED" }, notifications: 1 });

    const again = await postForm(notifyUrl, body);
    expect({ status: again.status, body: await again.text() }).toEqual({ status: 200, body: "success" });
    expect(await snapshot(on, order!.orderId)).toEqual(paid);
  });

  it("limits notifies per client address: a burst beyond the limit is answered 429", async () => {
    const answers = await Promise.all(
      Array.from({ length: NOTIFY_PER_IP * 3 }, () => postForm(`${web.url}/api/payments/notify`, { hello: "world" })),
    );
    const limited = answers.filter((a) => a.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    await Promise.all(answers.map((a) => a.text()));
  });

  it("each provider's notify path is reached past the gateway, and answers only for a provider offered", async () => {
    // Not the proxy's per-IP gate (a JSON refusal): the handler's own plain-text answers.
    for (const provider of ["alipay", "wechatpay"]) {
      const answer = await postForm(`${web.url}/api/payments/notify/${provider}`, { hello: "world" }, { origin: "https://evil.example" });
      const body = await answer.text();
      expect(answer.headers.get("content-type")).toMatch(/^text\/plain/);
      expect([404, 429], body).toContain(answer.status);
      if (answer.status === 404) expect(body).toBe(`This shop does not take payments through ${provider}.`);
    }
  });
});
