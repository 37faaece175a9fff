import type { Redis } from "ioredis";

/**
 * The ioredis release coalesceWrites was written against. It replaces a method ioredis does not
 * promise to keep (sendCommand as the one way out for every command, `stream` as the socket):
 * coalesce-writes.int.test.ts checks both against the installed ioredis and real Redis, and fails
 * on another release until this is re-checked.
 */
export const IOREDIS_VERSION = "5.11.1";

/**
 * Commands sent during one turn of the event loop leave in one write: the connection's socket is
 * corked at the first and uncorked once the turn's I/O callbacks have run (setImmediate). It is the
 * batching of ioredis's auto-pipelining without its Pipeline objects, which kept each batch's
 * commands alive past a young-generation collection and so stalled every request in flight on
 * the longer pauses that followed.
 */
export function coalesceWrites(redis: Redis): void {
  const send = redis.sendCommand.bind(redis);
  let corked = false;
  redis.sendCommand = (command, stream) => {
    // A `stream` is an explicit pipeline's or transaction's, which writes its batch itself.
    if (!corked && !stream && redis.status === "ready") {
      const socket = redis.stream;
      corked = true;
      socket.cork();
      setImmediate(() => {
        corked = false;
        socket.uncork();
      });
    }
    return send(command, stream);
  };
}
