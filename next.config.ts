import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Server libraries with native or dynamic parts run from node_modules, unbundled.
  serverExternalPackages: [
    "bullmq", "ioredis", "mariadb", "@prisma/adapter-mariadb", "pino", "bcryptjs",
    // The queue board reads its UI's templates and static files from node_modules at run time.
    "@bull-board/api", "@bull-board/hono", "@bull-board/ui", "@hono/node-server", "hono", "ejs",
  ],
  // Lua scripts are read from disk at run time (server/clients/redis.ts).
  outputFileTracingIncludes: { "/api/**": ["./server/seckill/*.lua"] },
  poweredByHeader: false,
};

export default nextConfig;
