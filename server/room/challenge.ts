import { createHmac } from "node:crypto";
import { createChallenge, randomInt, verifySolution, type Challenge, type Solution } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/pbkdf2";
import { z } from "zod";
import type { Env } from "../platform/env";

/**
 * The waiting room's proof-of-work challenge (ALTCHA v2, deterministic mode): the join answer
 * carries one bound to the shopper's seat, the page solves it in a Web Worker while the shopper
 * waits, and the purchase presents the solution. The server knows the answer when it issues the
 * challenge, so it signs the answer's key (keySignature) and a valid solution is checked with two
 * HMACs, no key derivation and no Redis; the ticket's single use makes the solution single use.
 */
export type RoomChallenge = Challenge;

/**
 * Who a challenge belongs to: one seat of one shopper in one opening of one sale's room. Seats
 * restart from 1 when a room is opened again, so the seat alone would carry a solution across.
 */
export interface ChallengeOwner {
  saleId: number;
  userId: number;
  /** the room's opening (RoomMetaHash.epoch), as the seat's ticket names it */
  epoch: number;
  seat: number;
}

/** Every room challenge uses one algorithm: PBKDF2 runs natively (WebCrypto) in every browser. */
export const CHALLENGE_ALGORITHM = "PBKDF2/SHA-256";

/**
 * PBKDF2 iterations per attempt when arrivals keep within the admission rate; the solver tries
 * on average COUNTER_SPAN / 2 attempts, so the expected work is cost × COUNTER_SPAN / 2.
 */
export const BASE_CHALLENGE_COST = 1_000;
/** The most challengeCost raises the base by, however far arrivals outrun admission. */
export const MAX_COST_FACTOR = 8;
/**
 * The secret counter is drawn from 1..COUNTER_SPAN: the solver must search up from 0, and a
 * span starting at 1 leaves a solver no head start to skip (a higher floor would only burden
 * honest pages).
 */
export const COUNTER_SPAN = 1_000;
/** Longest solution text verifyRoomSolution reads; a genuine one is about 900 characters. */
export const MAX_SOLUTION_CHARS = 2_048;

interface ChallengeKeys {
  secret: string;
  /** signs the challenge's parameters (owner, expiry, cost) */
  signature: string;
  /** signs the answer's derived key, so a valid solution is checked without deriving it again */
  keySignature: string;
}

let derived: ChallengeKeys | undefined;
/** Keys derived from SESSION_SECRET under their own labels, never the raw secret (ticket.ts does the same). */
function challengeKeys(secret: string): ChallengeKeys {
  if (derived?.secret !== secret) {
    const derive = (label: string) => createHmac("sha256", secret).update(label).digest("hex");
    derived = {
      secret,
      signature: derive("flash-sale room challenge signature"),
      keySignature: derive("flash-sale room challenge key signature"),
    };
  }
  return derived;
}

/**
 * A challenge for `owner`, `cost` PBKDF2 iterations per attempt, valid until `expiresAt` (epoch
 * ms; ALTCHA counts whole seconds, rounded up). The JSON the widget and API clients take as is.
 */
export async function roomChallenge(
  env: Pick<Env, "SESSION_SECRET">,
  owner: ChallengeOwner,
  opts: { cost: number; expiresAt: number },
): Promise<RoomChallenge> {
  const keys = challengeKeys(env.SESSION_SECRET);
  return createChallenge({
    algorithm: CHALLENGE_ALGORITHM,
    cost: Math.max(1, Math.round(opts.cost)),
    counter: randomInt(COUNTER_SPAN, 1),
    deriveKey,
    data: { saleId: owner.saleId, userId: owner.userId, epoch: owner.epoch, seat: owner.seat },
    expiresAt: Math.ceil(opts.expiresAt / 1000),
    hmacSignatureSecret: keys.signature,
    hmacKeySignatureSecret: keys.keySignature,
  });
}

const hex = (length: number) => z.string().regex(new RegExp(`^[0-9a-f]{${length}}$`));
/** The payload the widget emits (base64 of this JSON), with exactly what roomChallenge signs. */
const payloadSchema = z.object({
  challenge: z.object({
    parameters: z
      .object({
        algorithm: z.literal(CHALLENGE_ALGORITHM),
        nonce: hex(32),
        salt: hex(32),
        cost: z.number().int().min(1),
        keyLength: z.literal(32),
        keyPrefix: hex(32),
        keySignature: hex(64),
        expiresAt: z.number().int().min(1),
        data: z.object({ saleId: z.number().int(), userId: z.number().int(), epoch: z.number().int(), seat: z.number().int() }).strict(),
      })
      .strict(),
    signature: hex(64),
  }),
  solution: z.object({ counter: z.number().int().min(0).max(0xffffffff), derivedKey: hex(64), time: z.number().optional() }),
});

/**
 * Whether `solution` (the base64 payload the widget or server/cli/solve-challenge.ts gives) solves
 * a challenge roomChallenge signed for this owner and still valid at `now` (epoch ms, the shop's
 * clock). In process, HMAC only; false for anything else, never a throw.
 */
export async function verifyRoomSolution(
  env: Pick<Env, "SESSION_SECRET">,
  owner: ChallengeOwner,
  solution: unknown,
  now: number,
): Promise<boolean> {
  if (typeof solution !== "string" || solution.length > MAX_SOLUTION_CHARS) return false;
  let payload: z.infer<typeof payloadSchema>;
  try {
    const parsed = payloadSchema.safeParse(JSON.parse(Buffer.from(solution, "base64").toString("utf8")));
    if (!parsed.success) return false;
    payload = parsed.data;
  } catch {
    return false;
  }
  const { parameters } = payload.challenge;
  const { data } = parameters;
  if (data.saleId !== owner.saleId || data.userId !== owner.userId || data.epoch !== owner.epoch || data.seat !== owner.seat) return false;
  if (now >= parameters.expiresAt * 1000) return false;
  const keys = challengeKeys(env.SESSION_SECRET);
  try {
    const result = await verifySolution({
      challenge: payload.challenge,
      solution: payload.solution,
      deriveKey,
      hmacSignatureSecret: keys.signature,
      hmacKeySignatureSecret: keys.keySignature,
    });
    return result.verified;
  } catch {
    return false;
  }
}

/** The solution payload as the widget emits it: base64 of `{ challenge, solution }` JSON. */
export function encodeRoomSolution(challenge: RoomChallenge, solution: Solution): string {
  return Buffer.from(
    JSON.stringify({ challenge: { parameters: challenge.parameters, signature: challenge.signature }, solution }),
  ).toString("base64");
}

/**
 * PBKDF2 iterations per attempt for a room whose arrivals (joins per second) run at
 * `arrivalRate` against its `admissionRate`: the base while arrivals keep within admission;
 * above it, the base times the ratio, so a client joining k times faster than the room admits
 * pays k times the work per seat, up to MAX_COST_FACTOR times the base.
 */
export function challengeCost(base: number, arrivalRate: number, admissionRate: number): number {
  const floor = Math.max(1, Math.round(base));
  if (!(admissionRate > 0) || !(arrivalRate > admissionRate)) return floor;
  return Math.round(floor * Math.min(arrivalRate / admissionRate, MAX_COST_FACTOR));
}

/** Readings further apart than this give a rate; closer ones wait, so one burst is not a rate. */
export const ARRIVAL_WINDOW_MS = 1_000;
/** Rooms one process keeps a rate for; the oldest reading goes first. */
const MAX_ROOMS = 1_000;

interface Reading {
  joined: number;
  at: number;
}

interface RoomRate {
  /** where the current window began */
  base: Reading;
  /** the newest reading */
  latest: Reading;
  /** joins per second over the last complete window */
  perSecond: number;
}

/**
 * A room's arrival rate (joins per second), per process, from successive `joined` readings at
 * Redis's time that join answers carry: `joined` counts every seat in the room whichever
 * instance gave it, so any instance's readings measure the whole room's arrivals.
 */
export class ArrivalRate {
  private readonly rooms = new Map<number, RoomRate>();

  /** One join answer's reading: `joined` seats at `at` (epoch ms, Redis time). */
  observe(saleId: number, joined: number, at: number): void {
    const room = this.rooms.get(saleId);
    const reading = { joined, at };
    if (!room) return this.remember(saleId, { base: reading, latest: reading, perSecond: 0 });
    // An answer overtaken by a later one says nothing new.
    if (at < room.latest.at) return;
    // Fewer seats later on: the room was warmed anew, count from here.
    if (joined < room.latest.joined) return this.remember(saleId, { base: reading, latest: reading, perSecond: 0 });
    room.latest = reading;
    const elapsed = at - room.base.at;
    if (elapsed >= ARRIVAL_WINDOW_MS) {
      room.perSecond = ((joined - room.base.joined) * 1000) / elapsed;
      room.base = reading;
    }
    this.remember(saleId, room);
  }

  /**
   * Joins per second at `now`: the last complete window's rate while the current one runs;
   * once it has run over (no reading closed it), the joins since it began over the time since.
   */
  perSecond(saleId: number, now: number): number {
    const room = this.rooms.get(saleId);
    if (!room) return 0;
    const elapsed = now - room.base.at;
    if (elapsed <= ARRIVAL_WINDOW_MS) return room.perSecond;
    return ((room.latest.joined - room.base.joined) * 1000) / elapsed;
  }

  private remember(saleId: number, room: RoomRate): void {
    // Re-inserted so the map's order is least recently seen first.
    this.rooms.delete(saleId);
    this.rooms.set(saleId, room);
    if (this.rooms.size > MAX_ROOMS) this.rooms.delete(this.rooms.keys().next().value as number);
  }
}
