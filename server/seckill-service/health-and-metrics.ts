import type http from "node:http";
import type { HeaderReader } from "../gateway/session";
import { clientAddress } from "../gateway/client-ip";
import { METRICS_REFUSAL_HEADERS, metricsRefusal } from "../gateway/metrics-access";
import { checkHealth, type HealthServices } from "../health";
import { renderMetrics, type SaleGaugeServices } from "../admin/sale-gauges";
import { langOf } from "../i18n";
import { sendJson } from "./node-http";

/** /api/health and /api/metrics, so the service is watched like a web instance. */

export function answerHealth(services: HealthServices, res: http.ServerResponse): void {
  void checkHealth(services).then((report) => sendJson(res, report.ok ? 200 : 503, report));
}

export function answerMetrics(services: SaleGaugeServices, req: http.IncomingMessage, res: http.ServerResponse, headers: HeaderReader): void {
  // The client as the per-IP gate judges it: the peer, and the hops trusted proxies appended.
  const caller = clientAddress(req.headers["x-forwarded-for"] as string | undefined, req.socket.remoteAddress, services.env.TRUSTED_PROXY_HOPS);
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
