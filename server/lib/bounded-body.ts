/**
 * A request body as text, or null once it is longer than `maxBytes`: a declared length over the
 * bound is refused unread, and a streamed body is read only up to the bound, then let go, so an
 * oversized body never sits in memory whole. For route handlers that take small bodies from
 * anyone (payment notifications, the sandbox cashier's form).
 */
export async function readTextWithin(req: Request, maxBytes: number): Promise<string | null> {
  if (Number(req.headers.get("content-length") ?? 0) > maxBytes) {
    await req.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
