import type { Socket } from "node:net";
import type { Redis } from "ioredis";

/**
 * What leaves one ioredis connection from now on, write by write as the kernel gets it: each call
 * of its socket's `_write` or `_writev` is one write, recorded as the RESP text it carries.
 */
export interface SocketWrites {
  readonly texts: string[];
  clear(): void;
}

const asText = (chunk: unknown) => (typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("latin1"));

export function recordSocketWrites(redis: Redis): SocketWrites {
  const socket = redis.stream as Socket;
  const texts: string[] = [];
  const write = socket._write.bind(socket);
  const writev = socket._writev!.bind(socket);
  socket._write = (chunk, encoding, done) => {
    texts.push(asText(chunk));
    write(chunk, encoding, done);
  };
  socket._writev = (chunks, done) => {
    texts.push(chunks.map(({ chunk }) => asText(chunk)).join(""));
    writev(chunks, done);
  };
  return { texts, clear: () => void texts.splice(0) };
}

/** Script calls (EVAL or EVALSHA) in each recorded write that carries any. */
export function scriptCallsPerWrite(writes: SocketWrites): number[] {
  return writes.texts.map((text) => text.match(/\r\nevalsha?\r\n/gi)?.length ?? 0).filter((calls) => calls > 0);
}
