import { existsSync } from "node:fs";
import { defineConfig } from "prisma/config";

// `prisma generate` needs no database and no schema engine, but Prisma 7 insists on a path to
// one; its download is unreachable here, so point it at a file that exists. `prisma migrate` is
// not used by this project (see server/db/migrate.ts), so the engine is never actually run.
process.env.CHECKPOINT_DISABLE ??= "1";
if (!process.env.PRISMA_SCHEMA_ENGINE_BINARY || !existsSync(process.env.PRISMA_SCHEMA_ENGINE_BINARY)) {
  process.env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
}

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "mysql://root@127.0.0.1:3306/flashsale" },
});
