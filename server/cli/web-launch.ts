/**
 * The node command line of a web process (server/cli/web.ts: Next.js behind a server that owns
 * the socket), for `npm start`, `npm run web` and the test harness alike. Without `hostname` it
 * listens on every interface, as `next start` does. `preloads`: modules loaded first (a test's faults).
 */
export function webServerArgs(port: number, hostname?: string, preloads: string[] = []): string[] {
  return [
    "--import",
    "tsx",
    ...preloads.flatMap((file) => ["--import", file]),
    "server/cli/web.ts",
    "--port",
    String(port),
    ...(hostname ? ["--hostname", hostname] : []),
  ];
}
