import pino from "pino";
import { env } from "./env";

/** Redis commands whose arguments carry a password: a failed one's error names its command. */
const CREDENTIAL_COMMANDS = new Set(["auth", "hello"]);

/** pino's error serializer, with a failed AUTH's or HELLO's arguments (the password) masked. */
export function serializeError(error: Error): unknown {
  const serialized = pino.stdSerializers.err(error) as unknown;
  if (typeof serialized !== "object" || serialized === null) return serialized;
  const command = (serialized as { command?: unknown }).command as { name?: unknown; args?: unknown } | undefined;
  if (typeof command?.name === "string" && CREDENTIAL_COMMANDS.has(command.name.toLowerCase()))
    (serialized as { command: unknown }).command = { ...command, args: ["***"] };
  return serialized;
}

/** Structured JSON logs, one logger per process role. */
export function createLogger(role: "web" | "seckill" | "worker" | "script" | "services") {
  return pino({ name: role, level: env().LOG_LEVEL, serializers: { err: serializeError } });
}
