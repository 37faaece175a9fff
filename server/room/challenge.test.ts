import { describe, expect, it } from "vitest";
import {
  ArrivalRate,
  BASE_CHALLENGE_COST,
  MAX_COST_FACTOR,
  MAX_SOLUTION_CHARS,
  challengeCost,
  encodeRoomSolution,
  roomChallenge,
  verifyRoomSolution,
} from "./challenge";
import { solveRoomChallenge } from "./challenge-solver";

const env = { SESSION_SECRET: "test-session-secret-for-room-challenges-0123456789" };
const owner = { saleId: 7, userId: 42, epoch: Date.UTC(2030, 0, 1, 9, 0, 0), seat: 3 };
const now = Date.UTC(2030, 0, 1, 10, 0, 0);
const expiresAt = now + 120_000;
// Cheap attempts keep the solve in the test quick; the rule is the same at any cost.
const cost = 10;

const decode = (payload: string) => JSON.parse(Buffer.from(payload, "base64").toString("utf8"));
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");

describe("room challenge", () => {
  it("a solved challenge verifies for its owner before it expires", async () => {
    const challenge = await roomChallenge(env, owner, { cost, expiresAt });
    expect(challenge.parameters.data).toEqual(owner);
    expect(challenge.parameters.expiresAt).toBe(expiresAt / 1000);
    expect(challenge.parameters.keySignature).toMatch(/^[0-9a-f]{64}$/);
    const solution = await solveRoomChallenge(challenge);
    expect(await verifyRoomSolution(env, owner, solution, now)).toBe(true);
    expect(await verifyRoomSolution(env, owner, solution, expiresAt - 1)).toBe(true);
  });

  it("refuses an expired, foreign, tampered or unsolved solution", async () => {
    const challenge = await roomChallenge(env, owner, { cost, expiresAt });
    const solution = await solveRoomChallenge(challenge);
    expect(await verifyRoomSolution(env, owner, solution, expiresAt)).toBe(false);
    expect(await verifyRoomSolution(env, { ...owner, seat: 4 }, solution, now)).toBe(false);
    expect(await verifyRoomSolution(env, { ...owner, userId: 43 }, solution, now)).toBe(false);
    expect(await verifyRoomSolution(env, { ...owner, saleId: 8 }, solution, now)).toBe(false);
    expect(await verifyRoomSolution({ SESSION_SECRET: `${env.SESSION_SECRET}-other` }, owner, solution, now)).toBe(false);

    const payload = decode(solution);
    // Moved to another seat: the parameters no longer match their signature.
    const moved = structuredClone(payload);
    moved.challenge.parameters.data.seat = 4;
    expect(await verifyRoomSolution(env, { ...owner, seat: 4 }, encode(moved), now)).toBe(false);
    // Extended past its expiry.
    const extended = structuredClone(payload);
    extended.challenge.parameters.expiresAt += 3600;
    expect(await verifyRoomSolution(env, owner, encode(extended), expiresAt + 1000)).toBe(false);
    // Another key: the work was not done.
    const guessed = structuredClone(payload);
    guessed.solution.derivedKey = `${payload.solution.derivedKey.startsWith("0") ? "1" : "0"}${payload.solution.derivedKey.slice(1)}`;
    expect(await verifyRoomSolution(env, owner, encode(guessed), now)).toBe(false);
    // The challenge unsolved: its own prefix offered as the answer.
    const unsolved = structuredClone(payload);
    unsolved.solution = { counter: 0, derivedKey: payload.challenge.parameters.keyPrefix.padEnd(64, "0") };
    expect(await verifyRoomSolution(env, owner, encode(unsolved), now)).toBe(false);
    // The key signature stripped, so the library would derive the key itself: refused unsigned.
    const stripped = structuredClone(payload);
    delete stripped.challenge.parameters.keySignature;
    expect(await verifyRoomSolution(env, owner, encode(stripped), now)).toBe(false);
  });

  it("a solution for the same seat of an earlier opening of the room is refused", async () => {
    // Closed and opened again, the room gives seat 3 anew: the earlier opening's solution is no pass.
    const solution = await solveRoomChallenge(await roomChallenge(env, owner, { cost, expiresAt }));
    const reopened = { ...owner, epoch: owner.epoch + 60_000 };
    expect(await verifyRoomSolution(env, reopened, solution, now)).toBe(false);
    // Its epoch edited to the new opening's: the parameters no longer match their signature.
    const moved = decode(solution);
    moved.challenge.parameters.data.epoch = reopened.epoch;
    expect(await verifyRoomSolution(env, reopened, encode(moved), now)).toBe(false);
    expect(await verifyRoomSolution(env, owner, solution, now)).toBe(true);
  });

  it("a solution for one challenge does not solve another of the same owner", async () => {
    const first = await roomChallenge(env, owner, { cost, expiresAt });
    const second = await roomChallenge(env, owner, { cost, expiresAt });
    const solved = decode(await solveRoomChallenge(first));
    expect(await verifyRoomSolution(env, owner, encodeRoomSolution(second, solved.solution), now)).toBe(false);
  });

  it("garbage and huge input are false, never a throw", async () => {
    const challenge = await roomChallenge(env, owner, { cost, expiresAt });
    const solution = await solveRoomChallenge(challenge);
    const hostile: unknown[] = [
      undefined,
      null,
      0,
      1,
      true,
      {},
      [],
      decode(solution),
      "",
      "not base64 !!",
      encode("a string"),
      encode(null),
      encode([1, 2]),
      encode({ challenge: null, solution: null, test: true }),
      encode({ ...decode(solution), solution: { counter: -1, derivedKey: "zz" } }),
      encode({ ...decode(solution), solution: { counter: 2 ** 40, derivedKey: decode(solution).solution.derivedKey } }),
      `${solution}${"A".repeat(MAX_SOLUTION_CHARS)}`,
      "A".repeat(10_000_000),
    ];
    for (const input of hostile) await expect(verifyRoomSolution(env, owner, input, now)).resolves.toBe(false);
    expect(solution.length).toBeLessThan(MAX_SOLUTION_CHARS);
  });
});

describe("verification cost", () => {
  it("checks a solution with HMACs only, never deriving the key again, however costly the challenge", async () => {
    // One derivation at this cost is what createChallenge spends; verifying must cost far less.
    const started = performance.now();
    const challenge = await roomChallenge(env, owner, { cost: 200_000, expiresAt });
    const oneDerivation = performance.now() - started;
    const payload = { challenge, solution: { counter: 1, derivedKey: "ab".repeat(32) } };
    const verifying = performance.now();
    expect(await verifyRoomSolution(env, owner, encode(payload), now)).toBe(false);
    expect(performance.now() - verifying).toBeLessThan(oneDerivation / 4);
  });
});

describe("challengeCost", () => {
  it("is the base while arrivals keep within the admission rate", () => {
    expect(challengeCost(BASE_CHALLENGE_COST, 0, 50)).toBe(BASE_CHALLENGE_COST);
    expect(challengeCost(BASE_CHALLENGE_COST, 50, 50)).toBe(BASE_CHALLENGE_COST);
  });

  it("rises with the ratio of arrivals to admission, up to its cap", () => {
    expect(challengeCost(1000, 100, 50)).toBe(2000);
    expect(challengeCost(1000, 75, 50)).toBe(1500);
    expect(challengeCost(1000, 400, 50)).toBe(1000 * MAX_COST_FACTOR);
    expect(challengeCost(1000, 1e9, 50)).toBe(1000 * MAX_COST_FACTOR);
    expect(challengeCost(1000, Infinity, 50)).toBe(1000 * MAX_COST_FACTOR);
  });

  it("never goes below one iteration, nor reads a room without admission as crowded", () => {
    expect(challengeCost(1000, 100, 0)).toBe(1000);
    expect(challengeCost(1000, Number.NaN, 50)).toBe(1000);
    expect(challengeCost(0, 100, 50)).toBe(2);
    expect(challengeCost(-5, 0, 50)).toBe(1);
  });
});

describe("ArrivalRate", () => {
  const t0 = 1_900_000_000_000;

  it("knows nothing of a room it has not seen", () => {
    expect(new ArrivalRate().perSecond(1, t0)).toBe(0);
  });

  it("measures joins per second over each window of readings", () => {
    const rate = new ArrivalRate();
    rate.observe(1, 100, t0);
    rate.observe(1, 150, t0 + 500);
    // The window is not complete yet: no rate from half a second.
    expect(rate.perSecond(1, t0 + 500)).toBe(0);
    rate.observe(1, 300, t0 + 1000);
    expect(rate.perSecond(1, t0 + 1000)).toBe(200);
    rate.observe(1, 400, t0 + 2000);
    expect(rate.perSecond(1, t0 + 2000)).toBe(100);
  });

  it("keeps rooms apart", () => {
    const rate = new ArrivalRate();
    rate.observe(1, 0, t0);
    rate.observe(2, 0, t0);
    rate.observe(1, 500, t0 + 1000);
    rate.observe(2, 5, t0 + 1000);
    expect(rate.perSecond(1, t0 + 1000)).toBe(500);
    expect(rate.perSecond(2, t0 + 1000)).toBe(5);
  });

  it("falls as the room goes quiet", () => {
    const rate = new ArrivalRate();
    rate.observe(1, 0, t0);
    rate.observe(1, 1000, t0 + 1000);
    expect(rate.perSecond(1, t0 + 1500)).toBe(1000);
    rate.observe(1, 1010, t0 + 1200);
    expect(rate.perSecond(1, t0 + 6000)).toBe(2);
    expect(rate.perSecond(1, t0 + 11_000)).toBe(1);
  });

  it("ignores an answer overtaken by a later one, and starts again after a new warm-up", () => {
    const rate = new ArrivalRate();
    rate.observe(1, 100, t0);
    rate.observe(1, 300, t0 + 1000);
    rate.observe(1, 200, t0 + 900);
    expect(rate.perSecond(1, t0 + 1000)).toBe(200);
    rate.observe(1, 0, t0 + 1100);
    expect(rate.perSecond(1, t0 + 1100)).toBe(0);
    rate.observe(1, 30, t0 + 2100);
    expect(rate.perSecond(1, t0 + 2100)).toBe(30);
  });
});
