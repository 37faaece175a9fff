import { readFileSync } from "node:fs";
import path from "node:path";

/** A line `--- @include "<file>"`: replaced by that file's text, the path relative to the including file. */
const INCLUDE_LINE = /^[ \t]*---[ \t]*@include[ \t]+"([^"]+)"[ \t]*$/gm;

/**
 * A Lua script's text with its includes expanded, as Redis will run it. Each file is included
 * once per script (the first place that names it), so two includes sharing a third define it
 * once; an include that leads back to a file still being expanded is an error, as is a missing one.
 */
export function loadLua(file: string): string {
  return expand(path.resolve(file), [], new Set());
}

const shown = (file: string) => path.relative(process.cwd(), file);

function expand(file: string, including: string[], included: Set<string>): string {
  const text = readLuaFile(file, including.at(-1));
  included.add(file);
  const chain = [...including, file];
  return text.replace(INCLUDE_LINE, (_line, target: string) => {
    const next = path.resolve(path.dirname(file), target);
    if (chain.includes(next)) {
      throw new Error(`Lua include loop: ${[...chain, next].map(shown).join(" -> ")}`);
    }
    if (included.has(next)) return "";
    return expand(next, chain, included).replace(/\n$/, "");
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
