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
    rules: {
      // The code's convention: a leading underscore names what is left out on purpose (`{ stock: _stock, ...rest }`).
      "@typescript-eslint/no-unused-vars": [
        "warn",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      // React Compiler diagnostics; this app does not use the compiler, and the code's effects set state after
      // hydration (stored tickets, the time zone), its refs mirror the latest value, and server pages read the clock per request.
      "react-hooks/set-state-in-effect": "off",
      "react-hooks/refs": "off",
      "react-hooks/purity": "off",
    },
  },
  {
    // Tests read untyped JSON answers field by field.
    files: ["**/*.test.ts", "e2e/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // Playwright's fixtures call `use(...)`, which the hooks rules take for React's `use`.
    files: ["e2e/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
  prettier,
]);
