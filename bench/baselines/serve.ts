/**
 * Runs one baseline server in a process of its own (see startBaselineProcess in ./process.ts):
 *
 *   node --import tsx bench/baselines/serve.ts <kind> '<options as JSON>'
 *
 * prints `{"url":"http://127.0.0.1:…"}` on stdout once it listens, and closes on SIGTERM.
 */
import { startHelloServer, startLuaCeilingServer, startNaiveMysqlServer, type BaselineServer } from "./servers";
import { BASELINE_KINDS, type BaselineKind } from "./process";

async function start(kind: BaselineKind, options: Record<string, unknown>): Promise<BaselineServer> {
  switch (kind) {
    case "hello":
      return startHelloServer(options);
    case "lua-ceiling":
      return startLuaCeilingServer(options as unknown as Parameters<typeof startLuaCeilingServer>[0]);
    case "naive-mysql":
      return startNaiveMysqlServer(options as unknown as Parameters<typeof startNaiveMysqlServer>[0]);
  }
}

const [kind, optionsJson = "{}"] = process.argv.slice(2);
if (!BASELINE_KINDS.includes(kind as BaselineKind)) {
  console.error(`usage: serve.ts <${BASELINE_KINDS.join("|")}> '<options JSON>'`);
  process.exit(2);
}
const server = await start(kind as BaselineKind, JSON.parse(optionsJson) as Record<string, unknown>);
process.once("SIGTERM", () => {
  void server.close().then(() => process.exit(0));
});
console.log(JSON.stringify({ url: server.url }));
