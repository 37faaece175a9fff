import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ENV_SECTIONS, readEnv } from "../server/platform/env";
import { METRICS_ENDPOINTS, servesMetricsAt, type ProcessKind } from "./metrics-endpoints";

// No Docker engine on the development machines: the image, the compose files and the balancer
// config are checked by reading them, against package.json and server/platform/env.ts.
const root = path.resolve(import.meta.dirname, "..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

/** The Node LTS the image runs, major pinned. */
const NODE_BASE_IMAGE = "node:24-bookworm-slim";
const APP_IMAGE = "flashsale-app";
const APP_SERVICES = ["migrate", "web", "seckill", "worker"];
/** What a production process needs set (server/platform/env.ts requiredInProduction has no usable default for them). */
const MUST_SET = ["NODE_ENV", "DATABASE_URL", "SESSION_SECRET", "PUBLIC_BASE_URL"];
/** The image's tools' own switches (Next.js telemetry, Prisma's update check), not app configuration. */
const TOOL_SWITCHES = ["NEXT_TELEMETRY_DISABLED", "CHECKPOINT_DISABLE"];
const KNOWN_VARIABLES = new Set(Object.values(ENV_SECTIONS).flat());
const scripts: Record<string, string> = JSON.parse(read("package.json")).scripts;

interface Instruction {
  keyword: string;
  args: string;
}

/** A Dockerfile's instructions: comments dropped, `\` continuations joined. */
function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending = "";
  for (const line of text.split("\n")) {
    if (/^\s*#/.test(line)) continue;
    const continued = /\\\s*$/.test(line);
    pending += (pending ? " " : "") + line.replace(/\\\s*$/, "").trim();
    if (continued) continue;
    const match = /^(\w+)\s+(.*)$/.exec(pending.trim());
    if (match) instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim() });
    pending = "";
  }
  return instructions;
}

/** The instructions of the last stage (the image that runs). */
function finalStage(instructions: Instruction[]): Instruction[] {
  const lastFrom = instructions.map((i) => i.keyword).lastIndexOf("FROM");
  return instructions.slice(lastFrom);
}

/** ENV's names, in both forms (`ENV A=1 B=2` and `ENV A 1`). */
function envNames(args: string): string[] {
  if (!args.includes("=")) return [args.split(/\s+/)[0]!];
  return [...args.matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)=/g)].map((m) => m[1]!);
}

/** An exec-form command (`["npm", "run", "web"]`) as its words. */
function execForm(args: string): string[] {
  const words: unknown = JSON.parse(args);
  if (!Array.isArray(words) || !words.every((w) => typeof w === "string")) throw new Error(`not an exec-form command: ${args}`);
  return words;
}

/**
 * Why `command` cannot run in the image, or null when it can: `npm run <script>` of
 * package.json, or node (with tsx) on a file of the repository.
 */
function commandProblem(command: string[]): string | null {
  const [program, ...rest] = command;
  if (program === "npm") {
    if (rest[0] !== "run" || !rest[1]) return `npm without "run <script>": ${command.join(" ")}`;
    return scripts[rest[1]] ? null : `no npm script "${rest[1]}" in package.json`;
  }
  if (program === "node") {
    const file = rest.find((word, index) => !word.startsWith("-") && rest[index - 1] !== "--import");
    if (!file) return `node without a file: ${command.join(" ")}`;
    return existsSync(path.join(root, file)) ? null : `no file ${file}`;
  }
  return `not npm or node: ${command.join(" ")}`;
}

/**
 * The npm script whose command line `command` is, run by node itself: as a container's PID 1,
 * npm exits on SIGTERM without passing it on, and the process's own shutdown never runs.
 */
function scriptRunBy(command: string[]): string | undefined {
  if (command[0] !== "node") return undefined;
  return Object.keys(scripts).find((name) => scripts[name] === command.join(" "));
}

/** Compose's duration (`60s`, `1m30s`) in seconds. */
function seconds(duration: string): number {
  const parts = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration);
  if (!parts || (!parts[1] && !parts[2])) throw new Error(`not a duration: ${duration}`);
  return Number(parts[1] ?? 0) * 60 + Number(parts[2] ?? 0);
}

/** A health check's command, without the CMD marker. */
function healthCommand(test: string[]): string[] {
  return test[0] === "CMD" ? test.slice(1) : test;
}

/**
 * Compose's `${NAME:-default}` and `${NAME:?message}` as a deploy fills them in: the default, or
 * a value the operator would give (a fresh-looking secret).
 */
function interpolated(value: string): string {
  return value.replace(
    /\$\{[A-Z_]+(?::-([^}]*)|:\?[^}]*)\}/g,
    (_, fallback: string | undefined) => fallback ?? "an-operator-supplied-value-0123456789abcdef",
  );
}

type Service = {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test?: string[]; disable?: boolean };
  stop_grace_period?: string;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  ports?: string[];
  expose?: string[];
};
const composeServices = (file: string): Record<string, Service> => parseYaml(read(file), { merge: true }).services;

describe("Dockerfile", () => {
  const instructions = parseDockerfile(read("Dockerfile"));
  const runtime = finalStage(instructions);

  it("builds every stage from the pinned Node LTS (or from an earlier stage)", () => {
    const stages: string[] = [];
    for (const from of instructions.filter((i) => i.keyword === "FROM")) {
      const [image, as, alias] = from.args.split(/\s+/);
      expect(stages.includes(image!) || image === NODE_BASE_IMAGE, `FROM ${from.args}`).toBe(true);
      if (as?.toUpperCase() === "AS" && alias) stages.push(alias);
    }
    expect(runtime[0]!.args.split(/\s+/)[0]).toBe(NODE_BASE_IMAGE);
  });

  it("runs as a user that is not root", () => {
    const users = runtime.filter((i) => i.keyword === "USER").map((i) => i.args.split(":")[0]);
    expect(users.length).toBeGreaterThan(0);
    expect(["root", "0"]).not.toContain(users.at(-1));
  });

  it("keeps only the production dependencies", () => {
    const runs = instructions.filter((i) => i.keyword === "RUN").map((i) => i.args);
    expect(runs.some((run) => /npm (ci|prune)\b[^&]*--omit=dev/.test(run))).toBe(true);
  });

  it("checks its health with a command that exists, and starts an npm script", () => {
    const healthchecks = runtime.filter((i) => i.keyword === "HEALTHCHECK");
    expect(healthchecks).toHaveLength(1);
    const cmd = /\bCMD\s+(\[.*\])\s*$/.exec(healthchecks[0]!.args);
    expect(cmd, "HEALTHCHECK … CMD [exec form]").not.toBeNull();
    expect(commandProblem(execForm(cmd![1]!))).toBeNull();
    const start = runtime.filter((i) => i.keyword === "CMD").at(-1);
    expect(commandProblem(execForm(start!.args))).toBeNull();
    expect(scriptRunBy(execForm(start!.args)), "CMD: npm run web's node command line").toBe("web");
  });

  it("sets only variables server/platform/env.ts knows (or its tools' own switches), NODE_ENV=production", () => {
    const envs = instructions.filter((i) => i.keyword === "ENV");
    for (const name of envs.flatMap((i) => envNames(i.args))) {
      expect(KNOWN_VARIABLES.has(name) || TOOL_SWITCHES.includes(name), `ENV ${name}`).toBe(true);
    }
    expect(runtime.some((i) => i.keyword === "ENV" && /(^|\s)NODE_ENV=production(\s|$)/.test(i.args))).toBe(true);
  });

  it("has its processes listen on every interface (LISTEN_HOST=0.0.0.0): other containers call them", () => {
    expect(runtime.some((i) => i.keyword === "ENV" && /(^|\s)LISTEN_HOST=0\.0\.0\.0(\s|$)/.test(i.args))).toBe(true);
  });

  it("leaves history, local builds, secrets and test output out of the build context", () => {
    const ignored = read(".dockerignore")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith("#"));
    for (const entry of [".git", "node_modules", ".next", "test-results", ".env"]) expect(ignored, entry).toContain(entry);
  });
});

describe("docker-compose.yml", () => {
  const services = composeServices("docker-compose.yml");
  const app = Object.entries(services).filter(([, service]) => service.image === APP_IMAGE);

  it("runs migrate, web, seckill and worker from one image, built once", () => {
    expect(app.map(([name]) => name).sort()).toEqual([...APP_SERVICES].sort());
    expect(app.filter(([, service]) => service.build !== undefined).map(([name]) => name)).toHaveLength(1);
  });

  it("gives each app service a command and health check that exist in the image", () => {
    for (const [name, service] of app) {
      expect(service.command, `${name}: command`).toBeDefined();
      expect(commandProblem(service.command!), `${name}: command`).toBeNull();
      if (service.healthcheck?.test) expect(commandProblem(healthCommand(service.healthcheck.test)), `${name}: healthcheck`).toBeNull();
    }
    for (const [name, service] of app)
      expect(scriptRunBy(service.command!), `${name}: an npm script's node command line`).toBe(name === "migrate" ? "db:migrate" : name);
    // web keeps the image's HEALTHCHECK; seckill and worker need their own (other port, no HTTP).
    expect(services.web!.healthcheck?.disable).not.toBe(true);
    for (const name of ["seckill", "worker"]) expect(services[name]!.healthcheck?.test?.join(" "), name).toContain(name);
  });

  it("gives the worker a stop grace period longer than its drain, and web and seckill theirs (10 s)", () => {
    const drainSeconds = readEnv({}).WORKER_DRAIN_TIMEOUT_MS / 1000;
    expect(seconds(services.worker!.stop_grace_period ?? "10s")).toBeGreaterThanOrEqual(drainSeconds + 10);
    // web.ts and the seckill service cut what is left of their drain at 10 s; compose's default is 10 s.
    for (const name of ["web", "seckill"]) expect(seconds(services[name]!.stop_grace_period ?? "10s"), name).toBeGreaterThanOrEqual(15);
  });

  it("sets only variables server/platform/env.ts knows", () => {
    for (const [name, service] of app) {
      for (const variable of Object.keys(service.environment ?? {}))
        expect(KNOWN_VARIABLES.has(variable), `${name}: ${variable}`).toBe(true);
    }
  });

  it("sets what production requires, with values a production process accepts", () => {
    for (const required of MUST_SET) expect(ENV_SECTIONS.required, required).toContain(required);
    for (const [name, service] of app) {
      const environment = service.environment ?? {};
      for (const required of MUST_SET) expect(environment, `${name}: ${required}`).toHaveProperty(required);
      expect(environment.REDIS_URL ?? environment.REDIS_CLUSTER_NODES, `${name}: REDIS_URL or REDIS_CLUSTER_NODES`).toBeDefined();
      expect(environment.NODE_ENV, name).toBe("production");
      expect(environment.DEMO_SALE, `${name}: DEMO_SALE`).toBe("0");
      const filled = Object.fromEntries(Object.entries(environment).map(([key, value]) => [key, interpolated(String(value))]));
      expect(() => readEnv(filled), name).not.toThrow();
    }
  });

  it("asks for REAL_NAME_KEY_SECRET as for SESSION_SECRET, and passes on SMTP_URL and MAIL_FROM", () => {
    for (const [name, service] of app) {
      const environment = service.environment ?? {};
      for (const secret of ["SESSION_SECRET", "REAL_NAME_KEY_SECRET"])
        expect(environment[secret], `${name}: ${secret}`).toMatch(new RegExp(`^\\$\\{${secret}:\\?`));
      expect(environment.SMTP_URL, `${name}: SMTP_URL`).toBe("${SMTP_URL:-}");
      expect(environment.MAIL_FROM, `${name}: MAIL_FROM`).toMatch(/^\$\{MAIL_FROM:-.+\}$/);
      // Unset, the links go to the log: an empty SMTP_URL reads as unset, the sender as the default.
      const filled = readEnv(Object.fromEntries(Object.entries(environment).map(([key, value]) => [key, interpolated(String(value))])));
      expect(filled.SMTP_URL, name).toBeUndefined();
      expect(filled.MAIL_FROM, name).toBe(readEnv({}).MAIL_FROM);
    }
  });

  it("starts the app after the migration job, and that after healthy MySQL and Redis", () => {
    expect(services.migrate!.depends_on).toMatchObject({
      mysql: { condition: "service_healthy" },
      redis: { condition: "service_healthy" },
    });
    for (const name of ["web", "seckill", "worker"]) {
      expect(services[name]!.depends_on, name).toMatchObject({ migrate: { condition: "service_completed_successfully" } });
    }
    for (const name of ["mysql", "redis"]) expect(services[name]!.healthcheck?.test, name).toBeDefined();
  });

  it("runs MySQL 8 and a Redis with AOF and noeviction", () => {
    expect(services.mysql!.image).toMatch(/^mysql:8(\.|$)/);
    const redis = services.redis!.command!.join(" ");
    expect(redis).toContain("--appendonly yes");
    expect(redis).toContain("--appendfsync everysec");
    expect(redis).toContain("--maxmemory-policy noeviction");
  });

  it("has a MariaDB variant on its own volume", () => {
    const mariadb = composeServices("docker-compose.mariadb.yml").mysql!;
    expect(mariadb.image).toMatch(/^mariadb:\d+/);
    expect(mariadb.volumes?.some((volume) => volume.endsWith(":/var/lib/mysql") && !volume.startsWith("mysql-data:"))).toBe(true);
    expect(mariadb.healthcheck?.test).toBeDefined();
  });
});

describe("the balancer (deploy/nginx/, as compose mounts it)", () => {
  const services = composeServices("docker-compose.yml");
  const nginx = services.nginx!;
  const conf = read("deploy/nginx/nginx.conf");
  const frontDoor = read("deploy/nginx/front-door.server.conf");
  const upstream = (name: string) => new RegExp(`upstream\\s+${name}\\s*\\{([^}]*)\\}`).exec(conf)?.[1] ?? "";
  const location = (prefix: string) =>
    new RegExp(`location\\s+${prefix.replace(/\//g, "\\/")}\\s*\\{([^}]*)\\}`).exec(frontDoor)?.[1] ?? "";

  it("is the committed config, its includes mounted beside it, in front of healthy web and seckill services", () => {
    expect(nginx.volumes).toContain("./deploy/nginx/nginx.conf:/etc/nginx/nginx.conf:ro");
    // Relative includes are read from nginx.conf's own folder, /etc/nginx.
    const includes = [...conf.matchAll(/^\s*include\s+(\S+);/gm)].map((m) => m[1]!);
    expect(includes.sort()).toEqual(["front-door.http.conf", "front-door.server.conf"]);
    for (const file of includes) expect(nginx.volumes).toContain(`./deploy/nginx/${file}:/etc/nginx/${file}:ro`);
    expect(nginx.depends_on).toMatchObject({ web: { condition: "service_healthy" }, seckill: { condition: "service_healthy" } });
  });

  it("sends /api/seckill/ to the seckill services and the rest to web, on the ports they listen on", () => {
    const seckillPort = readEnv({ SECKILL_PORT: services.seckill!.environment?.SECKILL_PORT }).SECKILL_PORT;
    const webPort = readEnv({ PORT: services.web!.environment?.PORT }).PORT;
    expect(upstream("seckill")).toMatch(new RegExp(`server\\s+seckill:${seckillPort}\\b`));
    expect(upstream("web")).toMatch(new RegExp(`server\\s+web:${webPort}\\b`));
    expect(location("/api/seckill/")).toMatch(/proxy_pass\s+http:\/\/seckill\s*;/);
    expect(location("/")).toMatch(/proxy_pass\s+http:\/\/web\s*;/);
  });

  it("appends to X-Forwarded-For, and web and seckill trust that one hop", () => {
    expect(frontDoor).toMatch(/proxy_set_header\s+X-Forwarded-For\s+\$proxy_add_x_forwarded_for\s*;/);
    for (const name of ["web", "seckill"]) expect(services[name]!.environment?.TRUSTED_PROXY_HOPS, name).toBe("1");
  });

  it("web, seckill and worker listen on every interface of their container, so nginx and a scraper reach them", () => {
    for (const name of ["web", "seckill", "worker"]) expect(services[name]!.environment?.LISTEN_HOST, name).toBe("0.0.0.0");
  });
});

describe("Prometheus (deploy/observability/prometheus.yml, as compose runs it)", () => {
  const services = composeServices("docker-compose.yml");
  const prometheus = services.prometheus!;
  interface ScrapeJob {
    job_name: string;
    metrics_path?: string;
    static_configs?: unknown;
    dns_sd_configs?: { names: string[]; type?: string; port?: number }[];
  }
  const config = parseYaml(read("deploy/observability/prometheus.yml")) as { rule_files: string[]; scrape_configs: ScrapeJob[] };

  it("runs the committed config, its rule files beside it, its UI on this machine only", () => {
    expect(prometheus.image).toMatch(/^prom\/prometheus:v\d+\.\d+\.\d+(@sha256:[0-9a-f]{64})?$/);
    expect(prometheus.volumes).toContain("./deploy/observability/prometheus.yml:/etc/prometheus/prometheus.yml:ro");
    for (const file of config.rule_files) expect(prometheus.volumes).toContain(`./deploy/observability/${file}:/etc/prometheus/${file}:ro`);
    for (const port of prometheus.ports ?? []) expect(port, "published on loopback only").toMatch(/^127\.0\.0\.1:/);
  });

  it("scrapes every replica of web, seckill and worker: each service's DNS name, type A, on the port and path it serves", () => {
    const kinds: ProcessKind[] = ["web", "seckill", "worker"];
    expect(config.scrape_configs.map((job) => job.job_name).sort()).toEqual([...kinds].sort());
    for (const kind of kinds) {
      const job = config.scrape_configs.find((j) => j.job_name === kind)!;
      // A fixed target (web:3000) is one name: each scrape reaches whichever copy DNS answers.
      expect(job.static_configs, kind).toBeUndefined();
      const { path: metricsPath, portVariable } = METRICS_ENDPOINTS[kind];
      const port = readEnv({ [portVariable]: services[kind]!.environment?.[portVariable] })[portVariable];
      expect(job.dns_sd_configs, kind).toEqual([expect.objectContaining({ names: [kind], type: "A", port })]);
      expect(job.metrics_path ?? "/metrics", kind).toBe(metricsPath);
      expect(servesMetricsAt(kind, metricsPath), `${kind} serves ${metricsPath}`).toBe(true);
      expect(services[kind]!.expose, `${kind} exposes ${port}`).toContain(String(port));
    }
  });

  it("pins each third-party image to a version (a digest is documented in docs/deploy.md)", () => {
    for (const [name, service] of Object.entries(services)) {
      if (service.image === APP_IMAGE) continue;
      expect(service.image, name).toMatch(/:[^:@/]*\d[^:@/]*(@sha256:[0-9a-f]{64})?$/);
      expect(service.image, name).not.toMatch(/:latest\b/);
    }
    expect(read("docs/deploy.md")).toMatch(/@sha256:/);
  });
});
