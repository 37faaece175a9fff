import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Worker } from "bullmq";
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { createTestEnvironment, createLiveSale, startSeckillService, startWorker, waitFor, type TestEnvironment } from "../testing/harness";
import { readEnv } from "./env";
import { bullmqTelemetry, startTracing, stopTracing } from "./tracing";
import { createShoppers } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { createCaller } from "../trpc/root";
import { createContext } from "../trpc/init";
import { createOrderProcessor } from "../jobs/create-order";
import { QUEUE } from "../queues/queues";
import { connectRedis } from "../clients/redis";
import { queuePrefix } from "../queues/queues";

/**
 * One purchase's trace, in this process with the test's in-memory exporter: the procedures through
 * tRPC callers (as web and the seckill service run them) and the worker's create-order processor on
 * a BullMQ Worker. Three shoppers: two purchases leave in one create-order job, the third in a
 * second job, and both jobs meet in one group commit, so the batches' links are exercised too.
 */
const exporter = new InMemorySpanExporter();
let t: TestEnvironment;

beforeAll(async () => {
  // Before the services: their queues take BullMQ's telemetry only while tracing is on.
  await startTracing(readEnv({ OTEL_TRACES_SAMPLER_RATIO: "1" }), "web", [new SimpleSpanProcessor(exporter)]);
  t = await createTestEnvironment("tracing", { ORDER_ENQUEUE_WAIT_MS: "300", ORDER_BATCH_WAIT_MS: "500" });
});
afterAll(async () => {
  await t?.cleanup();
  await stopTracing();
});

const named = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const linkedTo = (span: ReadableSpan) => span.links.map((link) => link.context.spanId);
const traceOf = (span: ReadableSpan) => span.spanContext().traceId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

describe("tracing one purchase", () => {
  it("follows token → purchase → enqueue → create-order job → group commit, linking the batches' other members", async () => {
    const { services } = t;
    const shoppers = await createShoppers(services, 3, { emailPrefix: "traced" });
    const { saleId } = await createLiveSale(services, { productName: "Traced", stock: 5 });
    await warmUpSale(services, saleId);
    const buy = async (userId: number, bearer: string) => {
      const caller = createCaller(await createContext(services, new Headers({ authorization: `Bearer ${bearer}` })));
      const issued = await caller.seckill.token({ saleId });
      if (issued.status !== "ISSUED") throw new Error(`no token: ${issued.status}`);
      const answer = await caller.seckill.purchase({ saleId, token: issued.token });
      expect(answer.status).toBe("QUEUED");
      return { userId, token: issued.token };
    };
    const [first, second, third] = shoppers.map((s) => () => buy(s.id, s.token));
    const bought = await Promise.all([first!(), second!()]);
    await services.orderEnqueuer.drain();
    bought.push(await third!());
    await services.orderEnqueuer.drain();
    // A sampled token step's token carries its span, under the MAC.
    expect(bought.every((b) => b.token.includes("~"))).toBe(true);

    // Both jobs wait in the queue before the worker starts: they meet in one group commit.
    const processor = createOrderProcessor(services);
    const connection = connectRedis(services.env, { maxRetriesPerRequest: null });
    const worker = new Worker(QUEUE.createOrder, (job) => processor.process(job), {
      connection,
      prefix: queuePrefix(services.env.REDIS_NAMESPACE),
      concurrency: 4,
      telemetry: bullmqTelemetry(),
    });
    try {
      await waitFor(async () => (await services.db.order.count({ where: { saleId } })) === 3, 30_000, "the orders");
      await waitFor(async () => named("orders.group_commit").length > 0 && named("process create-order").length === 2, 10_000, "the spans");
    } finally {
      await worker.close();
      await processor.drain();
      await connection.quit();
    }

    const tokens = named("seckill.token");
    const purchases = named("seckill.purchase");
    const enqueues = named("seckill.enqueue");
    // BullMQ names an add by queue and job name.
    const adds = named("add create-order.create-order");
    const jobs = named("process create-order");
    const commits = named("orders.group_commit");
    expect([tokens.length, purchases.length, enqueues.length, jobs.length, commits.length]).toEqual([3, 3, 2, 2, 1]);

    // Each purchase continues its own token step's trace, as the token step's child.
    for (const purchase of purchases) {
      const token = tokens.find((span) => idOf(span) === parentOf(purchase));
      expect(token, "the purchase's parent is a token step").toBeDefined();
      expect(traceOf(purchase)).toBe(traceOf(token!));
      expect(purchase.attributes).toMatchObject({ "seckill.sale_id": saleId, "seckill.outcome": "QUEUED" });
    }
    // Every purchase reaches an enqueue: as its parent, or as a link of a batch it joined late.
    const enqueueOf = (purchase: ReadableSpan) =>
      enqueues.find((e) => parentOf(e) === idOf(purchase) || linkedTo(e).includes(idOf(purchase)));
    expect(purchases.every((purchase) => enqueueOf(purchase))).toBe(true);
    const shared = enqueues.find((e) => e.links.length === 1);
    expect(shared, "the two-purchase job's enqueue links the other purchase").toBeDefined();
    // Each enqueue's job add, and the job's processing in the worker, stay in the enqueue's trace.
    for (const enqueue of enqueues) {
      const add = adds.find((span) => parentOf(span) === idOf(enqueue));
      expect(add).toBeDefined();
      const job = jobs.find((span) => parentOf(span) === idOf(add!));
      expect(job).toBeDefined();
      expect(traceOf(job!)).toBe(traceOf(enqueue));
    }
    // One commit for both jobs: a child of one job's span, linked to the other's.
    const [commit] = commits;
    expect(commit!.attributes["orders.batch_size"]).toBe(3);
    expect([parentOf(commit!), ...linkedTo(commit!)].sort()).toEqual(jobs.map(idOf).sort());

    // So the first purchase's trace holds token, purchase, enqueue, job and group commit.
    const firstJob = jobs.find((job) => idOf(job) === parentOf(commit!))!;
    const trace = traceOf(firstJob);
    expect(commit!.spanContext().traceId).toBe(trace);
    const inTrace = exporter
      .getFinishedSpans()
      .filter((span) => traceOf(span) === trace)
      .map((span) => span.name);
    expect(inTrace).toEqual(
      expect.arrayContaining([
        "seckill.token",
        "seckill.purchase",
        "seckill.enqueue",
        "add create-order.create-order",
        "process create-order",
        "orders.group_commit",
      ]),
    );
  });

  it("is exported over OTLP by the real seckill service and worker processes, one trace across both", async () => {
    const received: ExportedSpan[] = [];
    const collector = http.createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += String(chunk)));
      req.on("end", () => {
        if (req.url === "/v1/traces") received.push(...exportedSpans(JSON.parse(body) as OtlpTraces));
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
    const tracing = {
      OTEL_TRACES_SAMPLER_RATIO: "1",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
    };
    const [service, worker] = await Promise.all([startSeckillService(t.childEnv, tracing), startWorker(t.childEnv, tracing)]);
    try {
      const [shopper] = await createShoppers(t.services, 1, { emailPrefix: "exported" });
      const { saleId } = await createLiveSale(t.services, { productName: "Exported", stock: 1 });
      await warmUpSale(t.services, saleId);
      const call = async (procedure: string, input: unknown) => {
        const response = await fetch(`${service.url}/api/seckill/${procedure}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${shopper!.token}` },
          body: JSON.stringify({ json: input }),
        });
        return ((await response.json()) as { result: { data: { json: { status: string; token?: string } } } }).result.data.json;
      };
      const issued = await call("seckill.token", { saleId });
      expect((await call("seckill.purchase", { saleId, token: issued.token })).status).toBe("QUEUED");
      await waitFor(async () => (await t.services.db.order.count({ where: { saleId } })) === 1, 30_000, "the order");
    } finally {
      // Stopping flushes each process's batch of spans to the collector.
      await Promise.all([service.stop(), worker.stop()]);
      collector.close();
    }
    const purchase = received.find((span) => span.name === "seckill.purchase");
    expect(purchase?.service).toBe("flash-sale-seckill");
    const inTrace = received.filter((span) => span.traceId === purchase!.traceId).map((span) => `${span.service} ${span.name}`);
    expect(inTrace).toEqual(
      expect.arrayContaining([
        "flash-sale-seckill seckill.token",
        "flash-sale-seckill seckill.purchase",
        "flash-sale-seckill seckill.enqueue",
        "flash-sale-worker process create-order",
        "flash-sale-worker orders.group_commit",
      ]),
    );
  });
});

/** The part of an OTLP/HTTP JSON export this test reads. */
interface OtlpTraces {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: { traceId: string; name: string }[] }[];
  }[];
}
interface ExportedSpan {
  service: string | undefined;
  traceId: string;
  name: string;
}
function exportedSpans(traces: OtlpTraces): ExportedSpan[] {
  return traces.resourceSpans.flatMap(({ resource, scopeSpans }) => {
    const service = resource.attributes.find((attribute) => attribute.key === "service.name")?.value.stringValue;
    return scopeSpans.flatMap(({ spans }) => spans.map(({ traceId, name }) => ({ service, traceId, name })));
  });
}
