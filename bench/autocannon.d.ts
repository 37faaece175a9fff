/**
 * The slice of autocannon 8's API that bench/ uses (the package ships no types and
 * @types/autocannon is not a dependency). See node_modules/autocannon/README.md.
 */
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p0_001: number;
    p0_01: number;
    p0_1: number;
    p1: number;
    p2_5: number;
    p10: number;
    p25: number;
    p50: number;
    p75: number;
    p90: number;
    p97_5: number;
    p99: number;
    p99_9: number;
    p99_99: number;
    p99_999: number;
    sent?: number;
  }

  export interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    [key: string]: unknown;
  }

  export interface Request extends RequestParams {
    setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams | null | undefined;
    onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
  }

  /**
   * One connection. `reqsMade`, `responseMax`, `opts` and `requestIterator.requestBuilder` (which
   * turns the current request into the bytes sent, or null to skip it) are internals
   * bench/lib/crowd.ts relies on (8.0.0).
   */
  export interface Client extends EventEmitter {
    reqsMade: number;
    responseMax?: number;
    /** the parsed URL (legacy url.parse) and options of this connection */
    opts: { host: string };
    requestIterator: { requestBuilder: (request: Request, context: Record<string, unknown>) => Buffer | null };
    setRequests(requests: Request[]): void;
    destroy(): void;
  }

  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    requests?: Request[];
    setupClient?: (client: Client) => void;
    initialContext?: Record<string, unknown>;
    title?: string;
  }

  export interface Result {
    title?: string;
    url: string;
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    start: Date;
    finish: Date;
    connections: number;
    pipelining: number;
    non2xx: number;
    resets: number;
    statusCodeStats: Record<string, { count: number }>;
    "1xx": number;
    "2xx": number;
    "3xx": number;
    "4xx": number;
    "5xx": number;
  }

  export interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void;
  }

  function autocannon(options: Options): Instance;
  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
