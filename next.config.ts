import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Server libraries with native or dynamic parts run from node_modules, unbundled.
  serverExternalPackages: ["bullmq", "ioredis", "mariadb", "@prisma/adapter-mariadb", "pino", "bcryptjs"],
  // Lua scripts are read from disk at run time (server/clients/redis.ts).
  outputFileTracingIncludes: { "/api/**": ["./server/seckill/*.lua"] },
  poweredByHeader: false,
};

export default nextConfig;
