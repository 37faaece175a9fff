import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { halfWidthNextToChinese } from "./i18n-check";

// The server's own sentences a shopper or operator reads (refusals, tRPC errors, the starting
// page) are { en, zh } pairs beside the code that says them; every `zh:` literal is read off the
// source and held to the catalogs' punctuation, its ${…} holes taken out. Not to their English
// rule: refusals meant for API callers name fields and methods (saleId, POST) on purpose.
const root = path.resolve(import.meta.dirname, "..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === "generated" || name === "testing") return [];
    if (statSync(full).isDirectory()) return sources(full);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [full] : [];
  });
}

const zhLiteral = /\bzh:\s*(["`])((?:\\.|(?!\1)[^\\])*)\1/g;

const sentences = sources(root).flatMap((file) =>
  [...readFileSync(file, "utf8").matchAll(zhLiteral)].map((m) => ({
    where: `${path.relative(root, file)}: ${m[2]!.slice(0, 60)}`,
    text: m[2]!.replace(/\$\{[^}]*\}/g, " 7 "),
  })),
);

describe("the server's Chinese sentences", () => {
  it("are found", () => {
    expect(sentences.length).toBeGreaterThan(50);
  });
  it("use full-width punctuation beside Chinese characters", () => {
    expect(sentences.filter((s) => halfWidthNextToChinese(s.text) !== null).map((s) => s.where)).toEqual([]);
  });
});
