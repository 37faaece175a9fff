/**
 * The message with which `npm start`'s launcher hands PORT's listening socket to the seckill
 * services (server/cli/starting-door.ts sends it, server/cli/seckill.ts serves it).
 */
export interface FrontDoorHandover {
  type: "front-door";
  /** The web instances behind the front door, on 127.0.0.1. */
  webPorts: number[];
}

export function isFrontDoorHandover(message: unknown): message is FrontDoorHandover {
  const candidate = message as Partial<FrontDoorHandover> | null;
  return (
    candidate?.type === "front-door" &&
    Array.isArray(candidate.webPorts) &&
    candidate.webPorts.length > 0 &&
    candidate.webPorts.every((port) => Number.isInteger(port))
  );
}
