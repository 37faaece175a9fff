/**
 * The node command line of a web process (server/cli/web.ts: Next.js behind a server that owns
 * the socket), for `npm start`, `npm run web` and the test harness alike. Without `hostname` it
 * listens on every interface, as `next start` does.
 */
export function webServerArgs(port: number, hostname?: string): string[] {
  return ["--import", "tsx", "server/cli/web.ts", "--port", String(port), ...(hostname ? ["--hostname", hostname] : [])];
}
