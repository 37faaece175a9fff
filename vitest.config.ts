import { defineConfig } from "vitest/config";
import path from "node:path";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["server/**/*.test.ts", "worker/**/*.test.ts", "app/**/*.test.ts", "bench/**/*.test.ts", "deploy/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "**/*.chaos.test.ts", "**/*.security.test.ts", "**/node_modules/**"],
          // Pure logic, no state between files, so files share their worker processes: a fresh
          // module graph per file cost most of the run.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["server/**/*.int.test.ts", "worker/**/*.int.test.ts", "prisma/**/*.int.test.ts", "bench/**/*.int.test.ts"],
          // Each file owns a database and a Redis namespace, so files may run side by side;
          // two at a time suits a 2-core machine. Each file builds its own services, so files
          // share worker processes and their loaded modules instead of importing them anew.
          maxWorkers: 2,
          isolate: false,
          sequence: { groupOrder: 1 },
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: "security",
          // Attacks over real HTTP against the whole system (front door, web, seckill service,
          // worker): the systems most files share start once (server/testing/shared-systems.ts),
          // each file with its own sales, shoppers and addresses. One file at a time: the attacks
          // assert a shopper answered within a second, and two attacks on two cores starve each
          // other's shoppers.
          include: ["server/**/*.security.test.ts"],
          globalSetup: ["server/testing/security-setup.ts"],
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
          testTimeout: 180_000,
          hookTimeout: 240_000,
        },
      },
      {
        extends: true,
        test: {
          name: "chaos",
          // Real processes killed and services restarted (npm run test:chaos); each file owns its
          // database, namespace and private redis-server. Two files at a time: each spends about
          // half its time waiting for a process to die or come back.
          include: ["server/**/*.chaos.test.ts"],
          maxWorkers: 2,
          sequence: { groupOrder: 3 },
          testTimeout: 300_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
