import type { Services } from "../platform/services";
import { credentialFrom, verifySession } from "../gateway/session";
import { addressFromFrontDoor, rateLimitKey } from "../gateway/client-ip";
import { STREAM_RETRY_AFTER_SECONDS, tooManyStreams, type StreamOwner } from "../gateway/stream-caps";
import { refusalBody } from "../platform/refusal-body";
import { langOf } from "../platform/i18n";

/**
 * A subscription's HTTP side (server-sent events served by ./http.ts): its slot under the caps of
 * open streams, taken before the procedure runs and given back when the response ends for any
 * reason, and its longest life.
 */

/** Whom a stream request counts against: its session's shopper (checked in process, no Redis), and its address. */
async function streamOwner(headers: Headers, secret: string): Promise<StreamOwner> {
  const credential = credentialFrom(headers);
  const session = credential ? await verifySession(credential, secret) : null;
  return { shopper: session ? String(session.userId) : null, address: rateLimitKey(addressFromFrontDoor(headers)) };
}

/**
 * A slot for the stream `req` asks for, or the refusal to answer instead: TOO_MANY_REQUESTS (429,
 * Retry-After) in the caller's language and in the envelope tRPC's client reads.
 */
export async function takeStreamSlot(
  services: Pick<Services, "env" | "streams" | "metrics">,
  req: Request,
): Promise<{ release: () => void } | { refusal: Response }> {
  const admission = services.streams.open(await streamOwner(req.headers, services.env.SESSION_SECRET));
  if (admission.admitted) return { release: admission.release };
  services.metrics.rateLimited.inc({ scope: `stream-${admission.over}` });
  const url = new URL(req.url);
  const message = tooManyStreams(admission.over)[langOf(req.headers)];
  const body = refusalBody(url.pathname, url.searchParams, { code: "TOO_MANY_REQUESTS", httpStatus: 429, message });
  return {
    refusal: Response.json(body, {
      status: 429,
      headers: { "retry-after": String(STREAM_RETRY_AFTER_SECONDS), "cache-control": "no-store" },
    }),
  };
}

/**
 * How long one stream may live: in the last quarter of the longest, at random, so the streams a
 * crowd opened in one second do not all reconnect in one second too.
 */
export function streamLifetimeMs(maxSeconds: number, random = Math.random()): number {
  return Math.round(maxSeconds * 1000 * (0.75 + 0.25 * random));
}

/**
 * The stream's response, which gives its slot back when it ends: the stream completed (its sale
 * ended, it errored), the client went away (`signal`, or the body cancelled), or `lifetimeMs`
 * passed. At the lifetime it is cut without tRPC's closing event, so the page's EventSource
 * reconnects (with the slot taken afresh) rather than treating the stream as finished; cutting
 * tRPC's body aborts the procedure's signal, so its watch lets go too.
 */
export function releasedAtEnd(response: Response, release: () => void, lifetimeMs: number, signal: AbortSignal): Response {
  const inner = response.body;
  if (!inner) {
    release();
    return response;
  }
  const reader = inner.getReader();
  const cut = () => void reader.cancel().catch(() => undefined);
  const timer = setTimeout(cut, lifetimeMs);
  const end = () => {
    clearTimeout(timer);
    signal.removeEventListener("abort", onGone);
    release();
  };
  const onGone = () => {
    end();
    cut();
  };
  if (signal.aborted) onGone();
  else signal.addEventListener("abort", onGone, { once: true });
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read();
        if (chunk.done) {
          end();
          controller.close();
        } else controller.enqueue(chunk.value);
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
