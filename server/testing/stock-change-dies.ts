import { env } from "../platform/env";
import { createServices } from "../composition";
import { adjustSaleStock } from "../admin/stock";

/**
 * A process that starts a stock change and is SIGKILLed between its halves, as a web process
 * crashing mid-change would be: what the crash test in server/admin/stock.int.test.ts leaves for
 * the reconciler. Usage: node --import tsx server/testing/stock-change-dies.ts <saleId> <delta>
 */
const [saleId, delta] = process.argv.slice(2).map(Number);
const services = await createServices(env());
await adjustSaleStock(
  services,
  { saleId: saleId!, delta: delta! },
  {
    betweenHalves: async () => {
      process.kill(process.pid, "SIGKILL");
      await new Promise(() => {}); // the signal lands before anything else runs
    },
  },
);
console.error("the stock change finished: the kill did not happen");
process.exit(1);
