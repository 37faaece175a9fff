import { readFileSync } from "node:fs";
import path from "node:path";

/** A line `--- @include "<file>"`: replaced by that file's text, the path relative to the including file. */
const INCLUDE_LINE = /^[ \t]*---[ \t]*@include[ \t]+"([^"]+)"[ \t]*$/gm;

/** Lua made by code when the scripts load, by the name scripts include it as ("@generated/<name>.lua"). */
export type GeneratedIncludes = Readonly<Record<string, string>>;

/**
 * A Lua script's text with its includes expanded, as Redis will run it. Each file is included
 * once per script (the first place that names it), so two includes sharing a third define it
 * once; an include that leads back to a file still being expanded is an error, as is a missing one.
 * An include named in `generated` is that text, not a file.
 */
export function loadLua(file: string, generated: GeneratedIncludes = {}): string {
  return expand(path.resolve(file), [], new Set(), generated);
}

const shown = (file: string) => path.relative(process.cwd(), file);

function expand(file: string, including: string[], included: Set<string>, generated: GeneratedIncludes): string {
  const text = readLuaFile(file, including.at(-1));
  included.add(file);
  const chain = [...including, file];
  return text.replace(INCLUDE_LINE, (_line, target: string) => {
    if (Object.hasOwn(generated, target)) {
      if (included.has(target)) return "";
      included.add(target);
      return generated[target]!.replace(/\n$/, "");
    }
    const next = path.resolve(path.dirname(file), target);
    if (chain.includes(next)) {
      throw new Error(`Lua include loop: ${[...chain, next].map(shown).join(" -> ")}`);
    }
    if (included.has(next)) return "";
    return expand(next, chain, included, generated).replace(/\n$/, "");
  });
}

function readLuaFile(file: string, includedFrom: string | undefined): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if (!includedFrom || (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    throw new Error(`Lua include not found: ${shown(file)} (included from ${shown(includedFrom)})`);
  }
}
