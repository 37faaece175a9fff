import type { AppRedis } from "../platform/redis-scripts";
import type { SaleKeys } from "../sale-redis/keys";
import type { TokenOutcome } from "./outcome";
import { codeNames, REFUSAL_CODES, REPLY_CODES, type RefusalName } from "../sale-redis/reply-codes";

/** issue-token-5.lua: its keys, its call and its reply read. */

/** KEYS of issue-token-5.lua, in its order: the shopper's home bucket. */
export function issueTokenKeyList(keys: SaleKeys, userId: number) {
  return [keys.stock, keys.meta, keys.users, keys.eligibility, keys.token(userId)] as const;
}

/** Not a token answer a shopper sees: purchase.ts turns it into PRECONDITION_FAILED. */
export type TokenReply = TokenOutcome | { status: "ROOM_REQUIRED" };

/** The shopper's token on `keys`' bucket (`fresh` unless one is alive); null when the sale is not warmed. */
export async function issueToken(
  redis: Pick<AppRedis, "issueToken">,
  keys: SaleKeys,
  call: { userId: number; fresh: string; ttlMs: number },
): Promise<TokenReply | null> {
  return readTokenReply(await redis.issueToken(...issueTokenKeyList(keys, call.userId), String(call.userId), call.fresh, call.ttlMs));
}

/** Every refusal but INVALID_TOKEN: no token is presented yet. */
const TOKEN_REFUSALS = codeNames(
  (Object.keys(REFUSAL_CODES) as RefusalName[]).filter((name): name is Exclude<RefusalName, "INVALID_TOKEN"> => name !== "INVALID_TOKEN"),
);

/** issue-token-5.lua's reply (see its header); null means the sale is not warmed up. */
export function readTokenReply(reply: readonly [number, number, string?, number?]): TokenReply | null {
  const [code, startsAt, token, msLeft] = reply;
  if (code === REPLY_CODES.OK && token !== undefined && msLeft !== undefined) return { status: "ISSUED", token, expiresInMs: msLeft };
  if (code === REPLY_CODES.NOT_WARMED) return null;
  if (code === REPLY_CODES.ROOM_REQUIRED) return { status: "ROOM_REQUIRED" };
  const status = TOKEN_REFUSALS.get(code);
  if (!status) throw new Error(`seckill script returned an unexpected token-mode code ${code}`);
  return status === "NOT_STARTED" ? { status, startsAt: new Date(startsAt) } : { status };
}
