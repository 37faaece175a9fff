import type http from "node:http";
import type { HeaderReader } from "../gateway/session";

/** The bare Node server's reading and writing: headers, a bounded body, a JSON answer. */

/** Node's request headers read like fetch's (lower-case names; repeated ones joined). */
export function nodeHeaders(req: http.IncomingMessage): HeaderReader {
  return {
    get(name) {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(", ") : (value ?? null);
    },
  };
}

// nosniff: a JSON answer is never run as a script or rendered as a page, whatever a client asks.
export const JSON_HEADERS = {
  "content-type": "application/json",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
} as const;

/** With its content-length, so Node sends the answer in one write rather than chunked. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers?: http.OutgoingHttpHeaders) {
  const payload = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, "content-length": Buffer.byteLength(payload), ...headers });
  res.end(payload);
}

export const MAX_BODY_BYTES = 16 * 1024;

/** The request's body as text, or null once it is over MAX_BODY_BYTES. */
export function readBody(req: http.IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) resolve(null);
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
