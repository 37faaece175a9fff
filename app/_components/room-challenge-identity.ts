/**
 * What identifies a room challenge across readings: its signature. The page receives the same
 * challenge again as a fresh object with every reading of the room, and must not start solving
 * anew for it; a new seat (room.join again) brings a new signature. Null for anything that is
 * not a signed challenge, which the solver leaves alone.
 */
export function challengeIdentity(challenge: unknown): string | null {
  if (typeof challenge !== "object" || challenge === null) return null;
  const { parameters, signature } = challenge as { parameters?: unknown; signature?: unknown };
  if (typeof signature !== "string" || !/^[0-9a-f]{64}$/.test(signature)) return null;
  if (typeof parameters !== "object" || parameters === null) return null;
  return signature;
}
