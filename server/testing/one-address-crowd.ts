import { mapConcurrently } from "./harness";
import type { SeededShopper } from "./seed";
import { SECKILL_ENDPOINT, TRPC_ENDPOINT, TRPC_MAX_BATCH_CALLS } from "../platform/endpoints";

/**
 * A crowd of shoppers behind one address (the test's own loopback, no X-Forwarded-For), as issue #41
 * met it: tokens fetched under the per-address rate, then every purchase in the same second while
 * the same address floods other calls over the rate. For the security test and the admin e2e spec.
 */

export interface HttpAnswer {
  status: number;
  retryAfter: string | null;
  body: {
    result?: { data: { json: { status: string; token?: string } } };
    error?: { json: { message: string; data: { code: string; httpStatus: number } } };
  };
}

/** A tRPC mutation as a load tool sends it (the README's curl flow). */
export async function postCall(base: string, path: string, bearer: string | null, input: unknown): Promise<HttpAnswer> {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify({ json: input }),
  });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as HttpAnswer["body"] };
}

/** A tRPC query over GET. */
export async function getCall(base: string, path: string, bearer: string | null, input: unknown): Promise<HttpAnswer> {
  const query = new URLSearchParams({ input: JSON.stringify({ json: input }) });
  const response = await fetch(`${base}${path}?${query}`, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: (await response.json()) as HttpAnswer["body"] };
}

/**
 * Each shopper's purchase token, fetched in steps of half the per-address rate a second (token
 * calls are charged); one refused by the rate (a window still full from an earlier flood) is asked
 * again after its Retry-After, as a well-behaved client does.
 */
export async function tokensUnderTheRate(
  base: string,
  endpoint: string,
  saleId: number,
  shoppers: readonly SeededShopper[],
  ratePerAddress: number,
): Promise<string[]> {
  const tokens: string[] = [];
  const step = Math.max(1, Math.floor(ratePerAddress / 2));
  const tokenFor = async (shopper: SeededShopper): Promise<string> => {
    for (;;) {
      const answer = await postCall(base, `${endpoint}/seckill.token`, shopper.token, { saleId });
      if (answer.body.result?.data.json.status === "ISSUED") return answer.body.result.data.json.token!;
      if (answer.status !== 429) throw new Error(`no token: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
      await sleep(Number(answer.retryAfter ?? 1) * 1000);
    }
  };
  for (let start = 0; start < shoppers.length; start += step) {
    const began = Date.now();
    tokens.push(...(await mapConcurrently(shoppers.slice(start, start + step), step, tokenFor)));
    await sleep(Math.max(0, 1100 - (Date.now() - began)));
  }
  return tokens;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every shopper's purchase at once, each with their token. */
export function buyAll(
  base: string,
  endpoint: string,
  saleId: number,
  shoppers: readonly SeededShopper[],
  tokens: readonly string[],
): Promise<HttpAnswer[]> {
  return Promise.all(
    shoppers.map((shopper, i) => postCall(base, `${endpoint}/seckill.purchase`, shopper.token, { saleId, token: tokens[i] })),
  );
}

/** A purchase answer as one word: the sale's status, or the HTTP error and its message. */
export function purchaseOutcome(answer: HttpAnswer): string {
  return answer.body.result?.data.json.status ?? `HTTP ${answer.status} ${answer.body.error?.json.message}`;
}

/** The flood's sale: never sold out, so its calls reach the gate (a sold-out sale is answered before it). */
const NO_SUCH_SALE = 999_999;

/**
 * Anonymous calls the per-address rate charges, a few at a time and without pause until stopped:
 * the seckill service's token step and batches of Next's clock.now (each call of a batch is
 * charged, so the rate is soon exceeded on a slow machine too).
 */
export function floodUntilStopped(base: string) {
  let flooding = true;
  const answers: HttpAnswer[] = [];
  const clockBatch = async (): Promise<HttpAnswer> => {
    const calls = Array(TRPC_MAX_BATCH_CALLS).fill("clock.now").join(",");
    const response = await fetch(`${base}${TRPC_ENDPOINT}/${calls}?batch=1&input={}`);
    const body = (await response.json()) as HttpAnswer["body"][];
    return { status: response.status, retryAfter: response.headers.get("retry-after"), body: body[0]! };
  };
  const loops = Array.from({ length: 16 }, async (_, loop) => {
    while (flooding) {
      // A flood call the front door drops under the load (a reset connection) is not what is tested.
      const answer = await (
        loop % 2 === 0 ? clockBatch() : postCall(base, `${SECKILL_ENDPOINT}/seckill.token`, null, { saleId: NO_SUCH_SALE })
      ).catch(() => null);
      if (answer) answers.push(answer);
    }
  });
  return {
    answers,
    /** Whether the address has been refused by the rate yet. */
    overTheRate: () => answers.some((answer) => answer.status === 429),
    async stop() {
      flooding = false;
      await Promise.all(loops);
    },
  };
}
