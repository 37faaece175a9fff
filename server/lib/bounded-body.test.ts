import { describe, expect, it } from "vitest";
import { readTextWithin } from "./bounded-body";

/** A streamed body of `chunks` chunks of `size` bytes, counting how many were pulled. */
function streamed(chunks: number, size: number, headers: Record<string, string> = {}) {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === chunks) return controller.close();
      pulled++;
      controller.enqueue(new Uint8Array(size).fill(97));
    },
  });
  return { req: new Request("http://x/", { method: "POST", body, headers, duplex: "half" } as RequestInit), pulled: () => pulled };
}

describe("readTextWithin", () => {
  it("reads a body within the bound", async () => {
    expect(await readTextWithin(new Request("http://x/", { method: "POST", body: "a=1&b=2" }), 7)).toBe("a=1&b=2");
    expect(await readTextWithin(new Request("http://x/", { method: "POST" }), 7)).toBe("");
  });

  it("refuses a declared length over the bound without reading", async () => {
    const { req, pulled } = streamed(100, 1024, { "content-length": String(100 * 1024) });
    expect(await readTextWithin(req, 1024)).toBeNull();
    // A readable stream asks its source for one chunk ahead (its high-water mark) on its own.
    expect(pulled()).toBeLessThanOrEqual(1);
  });

  it("stops reading a streamed body at the bound", async () => {
    const { req, pulled } = streamed(1000, 1024);
    expect(await readTextWithin(req, 4 * 1024)).toBeNull();
    expect(pulled()).toBeLessThan(10);
  });
});
