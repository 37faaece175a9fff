import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Every sentence the server says lives in its catalogs, server/platform/sentences/ (one file per
// language, checked by app/_i18n/catalogs.test.ts). Chinese anywhere else in the server's code,
// comments aside, is a sentence written beside the code again. The fakes of the payment providers
// (server/testing/) answer in Chinese as the real ones do.
const root = path.resolve(import.meta.dirname, "..");
const CATALOGS = path.join(root, "platform", "sentences");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === "generated" || name === "testing" || full === CATALOGS) return [];
    if (statSync(full).isDirectory()) return sources(full);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [full] : [];
  });
}

const comments = /\/\*[\s\S]*?\*\/|(^|\s)\/\/.*$/gm;
const chinese = /\p{Script=Han}+/u;

/** The app's route handlers answer from the server's catalogs too (pages and components use app/_i18n/). */
function routeHandlers(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return routeHandlers(full);
    return name === "route.ts" ? [full] : [];
  });
}

describe("the server's code outside its catalogs", () => {
  const files = [...sources(root), ...routeHandlers(path.resolve(root, "..", "app"))];

  it("is read", () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it("holds no Chinese sentence", () => {
    const inline = files.flatMap((file) =>
      readFileSync(file, "utf8")
        .replace(comments, (comment: string, lead: string | undefined) => (lead ?? "") + comment.replace(/[^\n]/g, ""))
        .split("\n")
        .flatMap((line, i) =>
          chinese.test(line) ? [`${path.relative(path.dirname(root), file)}:${i + 1}: ${line.trim().slice(0, 60)}`] : [],
        ),
    );
    expect(inline).toEqual([]);
  });

  // A refusal a person reads goes out in their language: an AppError made from a bare string would
  // answer a Chinese reader in English.
  it("makes no AppError from an English-only string", () => {
    const bare = /new AppError\(\s*"[A-Z_]+",\s*["`']/g;
    const found = files.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(bare)].map((match) => `${path.relative(path.dirname(root), file)}: ${match[0]}`),
    );
    expect(found).toEqual([]);
  });
});
