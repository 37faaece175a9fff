import { solveChallenge, type Challenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import { CHALLENGE_ALGORITHM, encodeRoomSolution } from "./challenge";

/**
 * Solves a room challenge in Node the way the page's widget does in the browser, and gives the
 * solution payload `seckill.purchase` takes: for API clients (server/cli/solve-challenge.ts), load
 * tools and tests. The server itself never solves.
 */
export async function solveRoomChallenge(challenge: unknown, opts: { timeoutMs?: number } = {}): Promise<string> {
  if (!isRoomChallenge(challenge))
    throw new Error(`not a room challenge: expected { parameters: { algorithm: "${CHALLENGE_ALGORITHM}", … }, signature }`);
  const solution = await solveChallenge({ challenge, deriveKey, timeout: opts.timeoutMs ?? 90_000 });
  if (!solution) throw new Error("no solution found before the timeout");
  return encodeRoomSolution(challenge, solution);
}

function isRoomChallenge(value: unknown): value is Challenge {
  if (typeof value !== "object" || value === null) return false;
  const { parameters, signature } = value as { parameters?: unknown; signature?: unknown };
  return (
    typeof signature === "string" &&
    typeof parameters === "object" &&
    parameters !== null &&
    (parameters as { algorithm?: unknown }).algorithm === CHALLENGE_ALGORITHM
  );
}
