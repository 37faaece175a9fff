// ESLint 9, flat config: Next's rules (eslint-config-next: @next/next, React, React hooks, imports,
// accessibility), typescript-eslint's recommended rules, and last eslint-config-prettier, which
// turns off every rule that would argue with Prettier (formatting is Prettier's alone).
import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";
import prettier from "eslint-config-prettier/flat";

export default defineConfig([
  // Generated or written by tools, never by hand.
  globalIgnores([
    ".next/**",
    "node_modules/**",
    "next-env.d.ts",
    "server/generated/**",
    "test-results/**",
    "playwright-report/**",
    "e2e/artifacts/**",
    "bench/reports/**",
    "bench/tmp/**",
    "coverage/**",
  ]),
  ...nextVitals,
  ...nextTypescript,
  {
    rules: {},
  },
  prettier,
]);
