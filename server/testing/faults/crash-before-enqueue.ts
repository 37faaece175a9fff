import { createHash } from "node:crypto";
import path from "node:path";
import { Redis } from "ioredis";
import { loadScript } from "../../platform/redis-scripts";
import { readReserveReply } from "../../seckill/reserve-unit-script";

/** Within the first wave of processes.chaos.test.ts's shoppers (60, on a sale of 100). */
const CRASH_AT_RESERVATION = 20;

/**
 * Preloaded into a web process (startWeb's `faults`): it SIGKILLs itself as its
 * CRASH_AT_RESERVATION-th reservation's reply arrives, before the purchase that made it runs on,
 * so that reservation, and any gathered for the same create-order job, never reaches the queue:
 * the gap check-back exists for. ioredis is patched rather than our code because Next
 * bundles our code, while it loads ioredis from node_modules, the same module this preload patches.
 */
let reservations = 0;
const send = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<Redis["sendCommand"]>) {
  const [command] = args;
  const result = send.apply(this, args);
  if (isReserveCall(command.name, command.args)) {
    // Registered before the purchase awaits the reply, so this runs first.
    void command.promise.then(
      (reply: unknown) => {
        if (!Array.isArray(reply) || readReserveReply([Number(reply[0]), Number(reply[1])]).kind !== "reserved") return;
        if (++reservations < CRASH_AT_RESERVATION) return;
        process.stderr.write("fault hook: dying between the reservation and its create-order job\n");
        process.kill(process.pid, "SIGKILL");
      },
      () => {},
    );
  }
  return result;
};

/** reserve-unit-7.lua, known by its SHA as ioredis computes it: EVALSHA sha …, or EVAL script … */
const reserveScript = loadScript(path.join(process.cwd(), "server/seckill/reserve-unit-7.lua"));
const reserveSha = createHash("sha1").update(reserveScript).digest("hex");

function isReserveCall(name: string, args: unknown[]): boolean {
  if (name === "evalsha") return String(args[0]) === reserveSha;
  return name === "eval" && String(args[0]) === reserveScript;
}
