import pino from "pino";
import { env } from "./env";

/** Structured JSON logs, one logger per process role. */
export function createLogger(role: "web" | "seckill" | "worker" | "script" | "services") {
  return pino({ name: role, level: env().LOG_LEVEL });
}
