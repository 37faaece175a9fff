import { inject } from "vitest";
import { readEnv, type Env } from "../platform/env";
import { createServices } from "../composition";
import type { Services } from "../platform/services";
import { freePort } from "../lib/net";
import { createTestEnvironment, startSystem, type ChildHandle, type TestEnvironment } from "./harness";

/**
 * The security project's shared systems: vitest's globalSetup (security-setup.ts) starts each once,
 * as `npm start` runs it, and the files that join one share it. Each file brings its own sale,
 * shoppers and loopback addresses, so files stay independent on one database and namespace.
 * A file whose claim needs a setting no other file can live with starts a system of its own.
 */
const SHIPPED = readEnv({});

export const SHARED_SYSTEMS = {
  /**
   * The shipped limits (request rate, sign-up limits). Shorter header and body timeouts, so the
   * front-door attacks wait for them in seconds, and a reconcile round every second, so the stock
   * test sees one inside its gap.
   */
  shop: {
    DEMO_SALE: "0",
    HEADERS_TIMEOUT_MS: "3000",
    REQUEST_TIMEOUT_MS: "6000",
    RECONCILE_INTERVAL_MS: "1000",
    // As shipped, written out: the harness turns the sign-up limits off for the rest of the suite,
    // and a value exported in the shell or .env must not change what the files assert.
    SIGN_UP_MAX_PER_ADDRESS: String(SHIPPED.SIGN_UP_MAX_PER_ADDRESS),
    SIGN_UP_ADDRESS_WINDOW_SECONDS: String(SHIPPED.SIGN_UP_ADDRESS_WINDOW_SECONDS),
    SIGN_UP_MAX_PER_DEVICE: String(SHIPPED.SIGN_UP_MAX_PER_DEVICE),
    SIGN_UP_DEVICE_WINDOW_SECONDS: String(SHIPPED.SIGN_UP_DEVICE_WINDOW_SECONDS),
    REQUEST_RATE_PER_IP: String(SHIPPED.REQUEST_RATE_PER_IP),
    FRONT_DOOR_CONNECTIONS_PER_IP: String(SHIPPED.FRONT_DOOR_CONNECTIONS_PER_IP),
    STREAMS_PER_SHOPPER: String(SHIPPED.STREAMS_PER_SHOPPER),
    // A loaded machine must not turn the gates' answers into fail-closed timeouts.
    REDIS_COMMAND_TIMEOUT_MS: "10000",
  },
  /** A per-address request rate and sign-in limits small enough to reach in one burst. */
  "low-rate": {
    DEMO_SALE: "0",
    REQUEST_RATE_PER_IP: "5",
    SIGN_IN_MAX_FAILURES_PER_ACCOUNT: "5",
    SIGN_IN_MAX_FAILURES_PER_IP: "8",
    SIGN_IN_LOCKOUT_SECONDS: "600",
    REDIS_COMMAND_TIMEOUT_MS: "5000",
  },
} satisfies Record<string, Record<string, string>>;

export type SharedSystemName = keyof typeof SHARED_SYSTEMS;

/** What a test file learns of a running shared system. */
export interface SharedSystemInfo {
  /** The front door. */
  url: string;
  webPort: number;
  /** The variables its processes run with (database, namespace, secrets, limits). */
  childEnv: Record<string, string>;
}

declare module "vitest" {
  export interface ProvidedContext {
    sharedSystems: Partial<Record<SharedSystemName, SharedSystemInfo>>;
  }
}

/** Starts one shared system (globalSetup); stop() ends it and drops its database and namespace. */
export async function startSharedSystem(
  name: SharedSystemName,
): Promise<{ info: SharedSystemInfo; system: ChildHandle; stop(): Promise<void> }> {
  let t: TestEnvironment | undefined;
  try {
    t = await createTestEnvironment(`security_${name}`, { ...SHARED_SYSTEMS[name], SECKILL_PORT: String(await freePort()) });
    const { childEnv } = t;
    const system = await startSystem(childEnv, {}, { readyWithinMs: 240_000 });
    const named = /the rest proxied to web \(internal ports (\d+)\)/.exec(system.output());
    if (!named) throw new Error(`npm start did not name its web port:\n${system.output()}`);
    const environment = t;
    return {
      info: { url: system.url, webPort: Number(named[1]), childEnv },
      system,
      async stop() {
        await system.stop();
        await environment.cleanup();
      },
    };
  } catch (error) {
    await t?.cleanup();
    throw error;
  }
}

/** A test file's view of a shared system: its URLs and services on the same database and namespace. */
export interface JoinedSystem {
  system: SharedSystemInfo;
  env: Env;
  services: Services;
  close(): Promise<void>;
}

export async function joinSharedSystem(name: SharedSystemName): Promise<JoinedSystem> {
  const system = inject("sharedSystems")[name];
  if (!system) throw new Error(`the shared system "${name}" is not running: the security project's globalSetup starts it`);
  const env = readEnv({ ...system.childEnv });
  const services = await createServices(env);
  return { system, env, services, close: () => services.close() };
}
