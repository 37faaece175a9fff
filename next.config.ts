import type { NextConfig } from "next";

/**
 * Content-Security-Policy for every page and API answer. Scripts need 'unsafe-inline': Next's
 * app router bootstraps each page with inline scripts, and the alternative, a nonce per request
 * minted in proxy.ts, would force every page to render dynamically; what the policy must stop
 * here is framing (frame-ancestors 'none': the admin console and the cashier), plugins, a
 * foreign <base> or form target, and anything loaded from or sent to another origin (no CDN).
 * Styles need it too: recharts and bull-board style elements inline. Development adds
 * 'unsafe-eval', which React's dev build uses for its error overlays.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${process.env.NODE_ENV === "development" ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const securityHeaders = [
  { key: "Content-Security-Policy", value: contentSecurityPolicy },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
];

const nextConfig: NextConfig = {
  // Server libraries with native or dynamic parts run from node_modules, unbundled.
  serverExternalPackages: [
    "bullmq",
    "ioredis",
    "mariadb",
    "@prisma/adapter-mariadb",
    "pino",
    "bcryptjs",
    // Worker threads load their file from disk (server/gateway/bcrypt-compare.worker.mjs).
    "piscina",
    // The queue board reads its UI's templates and static files from node_modules at run time.
    "@bull-board/api",
    "@bull-board/hono",
    "@bull-board/ui",
    "@hono/node-server",
    "hono",
    "ejs",
    // Tracing's SDK loads its exporters and detectors at run time; one API copy holds the provider.
    "@opentelemetry/api",
    "@opentelemetry/sdk-node",
    "@opentelemetry/sdk-trace-base",
    "@opentelemetry/exporter-trace-otlp-http",
    "bullmq-otel",
  ],
  // Lua scripts and their includes are read from disk at run time (server/clients/redis.ts).
  // So is the bcrypt check's worker file (server/gateway/password-hasher.ts).
  outputFileTracingIncludes: { "/api/**": ["./server/**/*.lua", "./server/**/*.worker.mjs"] },
  poweredByHeader: false,
  async headers() {
    return [
      { source: "/:path*", headers: securityHeaders },
      // HSTS only on answers that went out over TLS (the proxy in front says so); a browser
      // ignores it on plain HTTP anyway, so a client claiming HTTPS gains nothing.
      {
        source: "/:path*",
        has: [{ type: "header", key: "x-forwarded-proto", value: "https" }],
        headers: [{ key: "Strict-Transport-Security", value: "max-age=31536000" }],
      },
    ];
  },
};

export default nextConfig;
