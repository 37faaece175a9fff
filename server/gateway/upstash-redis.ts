import { createHash } from "node:crypto";
import { Redis as UpstashRedis, type Requester, type UpstashRequest, type UpstashResponse } from "@upstash/redis";
import type { RedisConnection } from "../clients/redis";

/**
 * `@upstash/redis` over a local ioredis connection: the same commands Upstash's REST API would
 * get, sent over the Redis protocol with no HTTP hop. Used by `@upstash/ratelimit`.
 *
 * Upstash's rate-limit scripts start with `#!lua flags=allow-key-locking`, a flag only Upstash
 * understands; plain Redis refuses the script. The shebang line is dropped on the way, and
 * EVALSHA of the original script is mapped to the SHA of the script actually loaded.
 */
const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");
const withoutShebang = (script: string) => (script.startsWith("#!") ? script.slice(script.indexOf("\n") + 1) : script);

type Command = [string, ...unknown[]];

const asArgument = (a: unknown) => (a === null || a === undefined ? "" : typeof a === "object" ? JSON.stringify(a) : String(a));
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
const asResult = (result: unknown): UpstashResponse<unknown> => ({ result });
const asErrorEntry = (error: unknown): UpstashResponse<unknown> => ({ error: messageOf(error) });
const rethrow = (error: unknown): never => {
  throw new Error(messageOf(error));
};

/**
 * Each command is one promise from ioredis plus one `then`: the rate limits run on the purchase
 * path under a crowd, and every async layer here would be a promise and a microtask more per check.
 */
export function ioredisRequester(redis: RedisConnection): Requester {
  // SHA of the script as sent -> SHA of the script as loaded (without its shebang line)
  const loaded = new Map<string, string>();

  /** One command's reply through `settle` or `fail`: a single `then` on ioredis's promise. */
  function send<T>(command: Command, settle: (result: unknown) => T, fail: (error: unknown) => T): Promise<T> {
    const [name, ...args] = command;
    const verb = name.toLowerCase();
    const flat = args.map(asArgument);
    if (verb === "eval") {
      const [script = "", ...rest] = flat;
      const runnable = withoutShebang(script);
      loaded.set(sha1(script), sha1(runnable));
      return redis.call("eval", runnable, ...rest).then(settle, fail);
    }
    if (verb === "evalsha") {
      // A script not loaded yet, or lost by Redis (a restart, SCRIPT FLUSH), answers NOSCRIPT, and
      // @upstash/ratelimit sends it again as EVAL (its safeEval): the branch above.
      const [sha = "", ...rest] = flat;
      return redis.call("evalsha", loaded.get(sha) ?? sha, ...rest).then(settle, fail);
    }
    return redis.call(verb, ...flat).then(settle, fail);
  }

  return {
    request<TResult>(req: UpstashRequest): Promise<UpstashResponse<TResult>> {
      const path = req.path?.[0];
      if (path === "pipeline" || path === "multi-exec") {
        // Upstash answers a pipeline with one {result|error} per command, not wrapped.
        const settled = (req.body as Command[]).map((command) => send(command, asResult, asErrorEntry));
        return Promise.all(settled) as unknown as Promise<UpstashResponse<TResult>>;
      }
      return send(req.body as Command, asResult, rethrow) as Promise<UpstashResponse<TResult>>;
    },
  };
}

/** Upstash's REST when configured, otherwise the local Redis through ioredis. */
export function createUpstashRedis(local: RedisConnection, rest?: { url: string; token: string }): UpstashRedis {
  if (rest) return new UpstashRedis({ url: rest.url, token: rest.token, enableTelemetry: false });
  return new UpstashRedis(ioredisRequester(local));
}
