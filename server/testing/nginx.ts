import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../lib/net";

/**
 * Debian's real nginx in front of test processes, with the production front door's protections:
 * the config written here includes deploy/nginx/front-door.*.conf by absolute path, the files
 * compose's nginx.conf includes, so a test attacks the very lines production runs.
 */

export const NGINX_BINARY = "/usr/sbin/nginx";
const NGINX_FOLDER = path.resolve(import.meta.dirname, "../../deploy/nginx");
export const FRONT_DOOR_FILES = {
  http: path.join(NGINX_FOLDER, "front-door.http.conf"),
  server: path.join(NGINX_FOLDER, "front-door.server.conf"),
};
/** Idle upstream connections each worker keeps per upstream (compose's keepalive is 64). */
export const UPSTREAM_KEEPALIVE = 8;

export interface NginxUpstreams {
  webPorts: readonly number[];
  seckillPorts: readonly number[];
}

/**
 * What a caller may add to the test config; without any, the config is the security tests'.
 */
export interface NginxOptions {
  /**
   * Addresses of a load balancer modelled in front of nginx, trusted to name the client in
   * X-Forwarded-For (ngx_http_realip: `set_real_ip_from`, `real_ip_header X-Forwarded-For`):
   * nginx then counts and appends the client's address, not the balancer's. Off by default.
   */
  realIpFrom?: readonly string[];
  /** Idle upstream connections the worker keeps per upstream; UPSTREAM_KEEPALIVE by default. */
  upstreamKeepalive?: number;
}

export interface RunningNginx {
  url: string;
  port: number;
  /** the master process's id (its worker is its child) */
  pid: number;
  /** One line per request: `<status> <method> <uri> <upstream address or ->`. */
  accessLog: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * The config for a test's own nginx: everything under `prefix` (pid, logs, temp files), in the
 * foreground, one worker (so the idle upstream pool is UPSTREAM_KEEPALIVE per upstream), run as
 * root so the worker can use the temp folders the root-run test made.
 */
export function renderNginxConfig(prefix: string, port: number, upstreams: NginxUpstreams, options: NginxOptions = {}): string {
  const keepalive = options.upstreamKeepalive ?? UPSTREAM_KEEPALIVE;
  const upstream = (name: string, ports: readonly number[]) => {
    if (!ports.length) throw new Error(`nginx needs at least one ${name} port`);
    return `  upstream ${name} {\n${ports.map((p) => `    server 127.0.0.1:${p};\n`).join("")}    keepalive ${keepalive};\n  }\n`;
  };
  const realIp = options.realIpFrom?.length
    ? `  # A load balancer in front names the client in X-Forwarded-For.\n${options.realIpFrom.map((address) => `  set_real_ip_from ${address};\n`).join("")}  real_ip_header X-Forwarded-For;\n`
    : "";
  const temp = (name: string) => path.join(prefix, name);
  return `daemon off;
master_process on;
worker_processes 1;
user root;
pid ${temp("nginx.pid")};
error_log ${temp("error.log")} warn;
events { worker_connections 4096; }

http {
  include ${FRONT_DOOR_FILES.http};
${realIp}  log_format upstreams '$status $request_method $uri $upstream_addr';
  access_log ${temp("access.log")} upstreams;
  client_body_temp_path ${temp("client_body")};
  proxy_temp_path ${temp("proxy")};
  fastcgi_temp_path ${temp("fastcgi")};
  uwsgi_temp_path ${temp("uwsgi")};
  scgi_temp_path ${temp("scgi")};

${upstream("seckill", upstreams.seckillPorts)}${upstream("web", upstreams.webPorts)}
  server {
    listen 127.0.0.1:${port};
    include ${FRONT_DOOR_FILES.server};
  }
}
`;
}

/** Runs `nginx -t` on a config file; resolves with its output, rejects with it when refused. */
export function checkNginxConfig(configFile: string, prefix: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(NGINX_BINARY, ["-t", "-p", prefix, "-c", configFile, "-e", path.join(prefix, "error.log")], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += String(chunk)));
    child.stderr.on("data", (chunk) => (output += String(chunk)));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(output) : reject(new Error(`nginx -t refused ${configFile}:\n${output}`))));
  });
}

/** Starts nginx on a free loopback port in front of the given ports; resolves once it answers. */
export async function startNginx(upstreams: NginxUpstreams, options: NginxOptions = {}): Promise<RunningNginx> {
  const prefix = mkdtempSync(path.join(tmpdir(), "fs-nginx-"));
  const port = await freePort();
  const configFile = path.join(prefix, "nginx.conf");
  writeFileSync(configFile, renderNginxConfig(prefix, port, upstreams, options));
  const child = spawn(NGINX_BINARY, ["-p", prefix, "-c", configFile, "-e", path.join(prefix, "error.log")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += String(chunk)));
  child.stderr.on("data", (chunk) => (output += String(chunk)));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const stop = async () => {
    // SIGTERM is nginx's fast shutdown: open streams do not hold it up.
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(prefix, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not start on port ${port}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `http://127.0.0.1:${port}`, port, pid: child.pid!, accessLog: path.join(prefix, "access.log"), output: () => output, stop };
}

/** Whether something accepts a TCP connection on the loopback port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** The front door's limits as the committed files set them, for tests that must follow the files. */
export interface FrontDoorSettings {
  connectionsPerAddress: number;
  streamsPerAddress: number;
  /** Requests per second per address for pages and calls, and the burst taken beyond it before 429. */
  requestRate: number;
  requestBurst: number;
  clientHeaderTimeoutSeconds: number;
  clientBodyTimeoutSeconds: number;
  keepaliveTimeoutSeconds: number;
  /** client_max_body_size: server-wide, and the purchase path's. */
  maxBody: string;
  purchaseMaxBody: string;
  proxyConnectTimeoutSeconds: number;
  proxySendTimeoutSeconds: number;
  proxyReadTimeoutSeconds: number;
  streamReadTimeoutSeconds: number;
}

export function readFrontDoorSettings(): FrontDoorSettings {
  const http = readFileSync(FRONT_DOOR_FILES.http, "utf8");
  const server = readFileSync(FRONT_DOOR_FILES.server, "utf8");
  const block = (start: string) => {
    const from = server.indexOf(start);
    if (from < 0) throw new Error(`front-door.server.conf has no ${start}`);
    return server.slice(from, server.indexOf("\n}", from));
  };
  // Server-level lines are the unindented ones; a location's are indented.
  const serverLevel = server
    .split("\n")
    .filter((line) => !/^\s/.test(line))
    .join("\n");
  const value = (text: string, pattern: RegExp, what: string) => {
    const match = pattern.exec(text);
    if (!match) throw new Error(`front-door files: no ${what}`);
    return match[1]!;
  };
  const seconds = (text: string, directive: string) => Number(value(text, new RegExp(`^\\s*${directive}\\s+(\\d+)s;`, "m"), directive));
  const streams = block("location ~ ^/api/trpc/");
  return {
    connectionsPerAddress: Number(value(serverLevel, /^limit_conn front_door_connections (\d+);/m, "limit_conn front_door_connections")),
    streamsPerAddress: Number(value(streams, /limit_conn front_door_streams (\d+);/, "limit_conn front_door_streams")),
    requestRate: Number(value(http, /zone=front_door_requests:\S+ rate=(\d+)r\/s;/, "the request rate")),
    requestBurst: Number(value(block("location / {"), /limit_req zone=front_door_requests burst=(\d+)\b/, "the request burst")),
    clientHeaderTimeoutSeconds: seconds(serverLevel, "client_header_timeout"),
    clientBodyTimeoutSeconds: seconds(serverLevel, "client_body_timeout"),
    keepaliveTimeoutSeconds: seconds(serverLevel, "keepalive_timeout"),
    maxBody: value(serverLevel, /^client_max_body_size\s+(\S+);/m, "client_max_body_size"),
    purchaseMaxBody: value(block("location /api/seckill/ {"), /client_max_body_size\s+(\S+);/, "the purchase path's client_max_body_size"),
    proxyConnectTimeoutSeconds: seconds(serverLevel, "proxy_connect_timeout"),
    proxySendTimeoutSeconds: seconds(serverLevel, "proxy_send_timeout"),
    proxyReadTimeoutSeconds: seconds(serverLevel, "proxy_read_timeout"),
    streamReadTimeoutSeconds: seconds(streams, "proxy_read_timeout"),
  };
}
