import type http from "node:http";
import type { HeaderReader } from "../gateway/session";
import { clientAddress } from "../gateway/client-ip";
import { HEALTH_REFUSAL_HEADERS, METRICS_REFUSAL_HEADERS, healthRefusal, metricsRefusal } from "../gateway/metrics-access";
import { sharedCheck } from "../lib/shared-answer";
import { checkHealth, checkReadiness, type HealthReport, type HealthServices, type Readiness } from "../platform/health";
import { renderMetrics, type SaleGaugeServices } from "../admin/sale-gauges";
import { langOf } from "../platform/i18n";
import { sendJson } from "./node-http";

/** /api/live, /api/ready, /api/health and /api/metrics, so the service is watched like a web instance. */

/** Liveness: this process answers. It asks nothing of Redis or MySQL, whose trouble a restart would not mend. */
export function answerLive(res: http.ServerResponse): void {
  sendJson(res, 200, { live: true });
}

const readiness = new WeakMap<HealthServices, () => Promise<Readiness>>();
const health = new WeakMap<HealthServices, () => Promise<HealthReport>>();
const shared = <T>(cache: WeakMap<HealthServices, () => Promise<T>>, services: HealthServices, check: () => Promise<T>) => {
  let ask = cache.get(services);
  if (!ask) cache.set(services, (ask = sharedCheck(check)));
  return ask();
};

/** Readiness: Redis and the queue, what the purchase path needs (server/platform/health.ts); one question a second at most. */
export function answerReady(services: HealthServices, res: http.ServerResponse): void {
  void shared(readiness, services, () => checkReadiness(services)).then((answer) => sendJson(res, answer.ready ? 200 : 503, answer));
}

/** The detailed view, for operators only (healthRefusal). */
export function answerHealth(
  services: HealthServices & SaleGaugeServices,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  headers: HeaderReader,
): void {
  const caller = clientAddress(
    req.headers["x-forwarded-for"] as string | undefined,
    req.socket.remoteAddress,
    services.env.TRUSTED_PROXY_HOPS,
  );
  const refusal = healthRefusal({ authorization: req.headers.authorization ?? null, clientAddress: caller }, services.env.METRICS_TOKEN);
  if (refusal) {
    res.writeHead(refusal.status, HEALTH_REFUSAL_HEADERS).end(refusal.text[langOf(headers)]);
    return;
  }
  void shared(health, services, () => checkHealth(services)).then((report) => sendJson(res, report.ok ? 200 : 503, report));
}

export function answerMetrics(
  services: SaleGaugeServices,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  headers: HeaderReader,
): void {
  // The client as the per-IP gate judges it: the peer, and the hops trusted proxies appended.
  const caller = clientAddress(
    req.headers["x-forwarded-for"] as string | undefined,
    req.socket.remoteAddress,
    services.env.TRUSTED_PROXY_HOPS,
  );
  const refusal = metricsRefusal({ authorization: req.headers.authorization ?? null, clientAddress: caller }, services.env.METRICS_TOKEN);
  if (refusal) {
    res.writeHead(refusal.status, METRICS_REFUSAL_HEADERS).end(refusal.text[langOf(headers)]);
    return;
  }
  void renderMetrics(services).then((text) => {
    res.writeHead(200, { "content-type": services.metrics.registry.contentType, "cache-control": "no-store" });
    res.end(text);
  });
}
