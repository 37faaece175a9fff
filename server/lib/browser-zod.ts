import { z } from "zod";

/**
 * The console's pages import form rules that build zod schemas. Our CSP has no 'unsafe-eval', and
 * zod probes `new Function` to compile parsers (a CSP violation): in a browser it runs without.
 * The server keeps zod's compiled parsers (the purchase path parses with them).
 */
if (typeof window !== "undefined") z.config({ jitless: true });
