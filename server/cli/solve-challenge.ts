import { solveRoomChallenge } from "../room/challenge-solver";

/**
 * Reads a waiting-room challenge (the `challenge` of a room.join answer) as JSON on stdin and
 * prints the solution for seckill.purchase's `solution` as a JSON string, for curl and load tools:
 *   … | jq .result.data.json.challenge | npx tsx server/cli/solve-challenge.ts
 * The answer is found in a second or so (a few more while the room is crowded).
 */
async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  let challenge: unknown;
  try {
    challenge = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new Error("stdin is not JSON: pipe in the challenge of a room.join answer");
  }
  process.stdout.write(`${JSON.stringify(await solveRoomChallenge(challenge))}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`solve-challenge: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
