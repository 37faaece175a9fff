// The house's import rules (docs/architecture.md, "Layers"), checked by `npm run lint:deps`, one of
// npm test's quick checks. Type-only imports count: they tie the rooms together as much as any.

/** Bottom to top: a folder may import its own layer and those below it, never one above. */
const LAYERS = [
  ["lib", "^server/(lib|generated)/"],
  ["clients", "^server/clients/"],
  // The sale's Redis layout and wire contract: keys, bucket arithmetic, reply and eligibility codes.
  ["sale-redis", "^server/sale-redis/"],
  ["platform", "^server/platform/"],
  // The domain, in the chain's order read upwards: each link hands down to the ones it needs.
  ["db", "^server/db/"],
  ["stock", "^server/stock/"],
  ["queues", "^server/queues/"],
  ["gateway", "^server/gateway/"],
  // The waiting room's pass (ticket, challenge, reading), which the purchase checks.
  ["room", "^server/room/"],
  ["seckill", "^server/seckill/"],
  // Joining the room: a cold sale is answered as the purchase's token step answers it.
  ["room-join", "^server/room-join/"],
  ["orders", "^server/orders/"],
  // Warm-up loads a sale into Redis whole: its stock, the units active orders hold, its waiting room.
  ["warmup", "^server/warmup/"],
  ["payments", "^server/payments/"],
  // An unpaid order's cancel asks its payment provider first, then gives the unit back.
  ["cancel", "^server/cancel/"],
  ["recovery", "^server/recovery/"],
  ["jobs", "^server/jobs/"],
  ["admin", "^server/admin/"],
  // What serves the domain to the world, and the one place that builds the services.
  ["edges", "^server/(trpc|front-door|seckill-service)/"],
  ["composition", "^server/composition\\.ts$"],
  ["cli", "^server/cli/"],
  ["testing", "^server/testing/"],
  ["app", "^(app/|proxy\\.ts$|instrumentation\\.ts$)"],
  ["processes and tools", "^(worker|prisma|bench|e2e|deploy)/"],
];

/** Modules that may import from layers above them, by type only (no run-time arrow), each with its reason. */
const EXCEPTIONS = [
  // The one left. Every domain module takes its slice of the services interface, so the interface sits
  // below them all; its members are domain services (queues, sold-out flags, rate limiter, payment
  // providers…), so it names their types upwards. Type-only: nothing runs, no circle at run time.
  { file: "server/platform/services.ts" },
];

// A test may use the harness above its module (server/testing/); the circle and app rules still hold for it.
const TESTS = "\\.test\\.tsx?$";
const exactly = (file) => `^${file.replace(/[.]/g, "\\.")}$`;
const above = (index) => LAYERS.slice(index + 1).map(([, path]) => path);
const layerOf = (file) => LAYERS.findIndex(([, path]) => new RegExp(path).test(file));

// One rule per layer; a module with an exception gets a rule of its own that lets its named arrow through.
const layerRules = LAYERS.slice(0, -1).flatMap(([name, from], index) => {
  const own = EXCEPTIONS.filter((e) => layerOf(e.file) === index);
  const rule = (suffix, fromPath, to) => ({
    name: `layer-${name.replace(/\W+/g, "-")}${suffix}`,
    comment: `${name} imports nothing from a layer above it`,
    severity: "error",
    from: fromPath,
    to: { path: above(index), ...to },
  });
  return [
    rule("", { path: from, pathNot: [TESTS, ...own.map((e) => exactly(e.file))] }, {}),
    // An exception lets a module import upwards by type only.
    ...own.map((e) => rule("-exception", { path: exactly(e.file) }, { dependencyTypesNot: ["type-only"] })),
  ];
});

/** Modules the browser's components may import at run time: pure, no I/O, no secret. */
const BROWSER_SAFE = [
  "server/platform/(endpoints|i18n)",
  "server/platform/sentences/(en|zh|sentence)",
  "server/orders/statuses",
  "server/gateway/stream-caps",
  "server/room/frontier",
  "server/seckill/(phase|shop-refusals)",
  "server/admin/(sale-form|order-search|crowd-report)",
].map((path) => `^${path}\\.ts$`);

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import circle anywhere",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: "clients-know-no-domain",
      comment: "server/clients/ imports only itself, the generic helpers and the generated Prisma client",
      severity: "error",
      from: { path: "^server/clients/", pathNot: "\\.test\\.ts$" },
      to: { path: "^server/", pathNot: "^server/(clients|lib|generated)/" },
    },
    {
      name: "server-stays-out-of-app-and-processes",
      comment: "server/ never imports app/, worker/, prisma/ or the tools",
      severity: "error",
      from: { path: "^server/" },
      to: { path: "^(app|worker|prisma|bench|e2e|deploy)/" },
    },
    {
      name: "browser-imports-types-from-the-server",
      comment: "The browser's components take only types from server/, but from the pure modules BROWSER_SAFE lists",
      severity: "error",
      from: { path: "^app/(_components|_i18n|admin/_components)/", pathNot: ["^app/_i18n/server\\.ts$", TESTS] },
      to: { path: "^server/", pathNot: BROWSER_SAFE, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "browser-safe-modules-stay-pure",
      comment: "What the browser may import reaches no client, environment, logger or Node built-in at run time",
      severity: "error",
      from: { path: BROWSER_SAFE },
      to: {
        dependencyTypesNot: ["type-only"],
        path: [
          "^server/(clients|generated/prisma/client)",
          "^server/platform/(env|services|logger|metrics|tracing|health|redis-scripts)\\.ts$",
        ],
      },
    },
    {
      name: "browser-safe-modules-use-no-node-builtins",
      severity: "error",
      from: { path: BROWSER_SAFE },
      to: { dependencyTypes: ["core"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|\\.next|test-results|playwright-report)/|^server/generated/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".mjs", ".js", ".json"] },
  },
};
