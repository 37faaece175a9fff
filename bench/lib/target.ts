import { answeredAttempts } from "./crowd";

/**
 * `--target URL`: the bench loads a system that is already running (`npm start`, a staging
 * deployment) instead of starting its own: what an SRE runs the night before a sale.
 */

/** The outcome of an attempt refused by the gateway's per-IP rate limit (bench/lib/crowd.ts answerOf). */
const RATE_LIMITED = "error TOO_MANY_REQUESTS";

/**
 * Above this share of a warm-up's answers refused by the per-IP request rate, the system under test
 * counts the load generator's address, not each shopper's: a crowd run on would measure refusals.
 */
const REFUSED_SHARE = 0.1;

/** Why a warm-up's answers say the crowd cannot be measured against this system, or null when it can. */
export function crowdRefusedProblem(outcomes: Record<string, number>): string | null {
  const answered = answeredAttempts({ outcomes });
  const refused = outcomes[RATE_LIMITED] ?? 0;
  if (answered === 0 || refused / answered <= REFUSED_SHARE) return null;
  return (
    `${refused.toLocaleString("en-US")} of ${answered.toLocaleString("en-US")} warm-up attempts were refused by the per-IP rate limit: ` +
    "the system counts the load generator's one address, not each shopper's X-Forwarded-For. Trust one more proxy hop there " +
    "(TRUSTED_PROXY_HOPS=1 npm start, or one more on a deployed system) or switch the per-IP request rate off for the test (REQUEST_RATE_PER_IP=0)."
  );
}

/** Each target's health check must answer 200 before anything is seeded into its database. */
export async function checkTargets(urls: readonly string[]): Promise<void> {
  for (const url of urls) {
    const status = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(10_000) }).then(
      (response) => response.status,
      () => null,
    );
    if (status !== 200) throw new Error(`--target ${url}: ${url}/api/health answered ${status ?? "nothing"}; is the system running there?`);
  }
}
