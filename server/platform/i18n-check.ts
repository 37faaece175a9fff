/**
 * The rules a Chinese sentence is held to, as plain functions: app/_i18n/catalogs.test.ts runs
 * them over every catalog (the app's and the server's own, server/platform/sentences/),
 * e2e/zh-pages.spec.ts over what a browser shows.
 */

/** One entry of a catalog: its dotted key and either a sentence or a function making one. */
export interface Leaf {
  key: string;
  value: string | ((...args: never[]) => string);
}

export function leaves(catalog: object, prefix = ""): Leaf[] {
  return Object.entries(catalog).flatMap(([name, value]: [string, unknown]) => {
    const key = prefix ? `${prefix}.${name}` : name;
    if (typeof value === "string" || typeof value === "function") return [{ key, value: value as Leaf["value"] }];
    if (value && typeof value === "object") return leaves(value, key);
    throw new Error(`${key} is neither a sentence, a function nor a group`);
  });
}

/** A number, a word and a date at once: what a probe call hands each parameter of a catalog function. */
const PROBE_DATE = new Date(2026, 11, 5, 7, 54);
const probe: unknown = new Proxy(PROBE_DATE, {
  get(target, name) {
    if (name === Symbol.toPrimitive) return () => 7;
    const own = Reflect.get(target, name, target) as unknown;
    if (typeof own === "function") return (own as (...a: unknown[]) => unknown).bind(target);
    return 7; // a field of an object parameter (warmSummary's w.stock…)
  },
});

/** What a catalog entry says: the sentence, or the function's sentence for probe arguments. */
export function sample(value: Leaf["value"]): string {
  if (typeof value === "string") return value;
  const call = value as (...args: unknown[]) => unknown;
  for (const args of [Array(call.length).fill(probe), Array(call.length).fill(7), Array(call.length).fill("7")]) {
    try {
      const said = call(...args);
      if (typeof said === "string") return said;
    } catch {
      // the next kind of argument
    }
  }
  throw new Error(`cannot call ${call.toString().slice(0, 60)}`);
}

/**
 * Latin words a Chinese page may show besides product data: the names of the systems an operator
 * runs (Redis, MySQL), "App" and "Web" as Chinese writes them (支付宝 App, Web 实例), time zones.
 */
export const TECHNICAL_WORDS: ReadonlySet<string> = new Set(["Redis", "MySQL", "Web", "App", "GMT", "UTC"]);

const CJK = "\\p{Script=Han}\\u3000-\\u303f\\uff00-\\uffef";
const HALF_WIDTH_BY_CHINESE = new RegExp(`[${CJK}]\\s?[,:;?!()]|[,:;?!()]\\s?[${CJK}]`, "u");

/** Half-width , : ; ? ! ( ) beside a Chinese character ("价格(元)", "注意: 库存"): Chinese takes ，：；？！（）. */
export function halfWidthNextToChinese(text: string): string | null {
  return HALF_WIDTH_BY_CHINESE.exec(text)?.[0] ?? null;
}

/**
 * English left on a page meant to be Chinese: every Latin word not in `allowed`, so "Sign in" and
 * a lone "Loading" are both found. Emails, URLs and site paths are taken out first; a token with
 * a digit in it (an id, "E2E", a device hash) is no word.
 */
export function englishWords(text: string, allowed: ReadonlySet<string> = TECHNICAL_WORDS): string[] {
  const stripped = text
    .replace(/\S+@\S+/g, " ")
    .replace(/https?:\/\/\S*/g, " ")
    .replace(/(^|\s)\/[\w./-]+/g, " ");
  // Tokens of letters, digits and joiners; only those of letters alone are words ("d3v1c3", "E2E" are not).
  const words = (stripped.match(/[A-Za-z0-9_'’-]+/g) ?? []).filter((token) => /^[A-Za-z]+(?:['’-][A-Za-z]+)*$/.test(token));
  return [...new Set(words.filter((w) => !allowed.has(w)))];
}
