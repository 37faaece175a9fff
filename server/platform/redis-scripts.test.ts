import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scriptCommand } from "../clients/redis";
import { GENERATED_INCLUDES, loadScript, scriptPaths } from "./redis-scripts";
import { REPLY_CODES, withReplyCodes } from "../sale-redis/reply-codes";
import { loadLua } from "../clients/lua-include";

const root = path.resolve(import.meta.dirname, "../..");
const rel = (file: string) => path.relative(root, file);

function luaFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return luaFilesUnder(full);
    return entry.name.endsWith(".lua") ? [full] : [];
  });
}

/** The files a Lua file names in its `--- @include` lines, and the ones those name, and so on (generated ones aside). */
function includedBy(file: string, found = new Set<string>()): Set<string> {
  for (const match of readFileSync(file, "utf8").matchAll(/^[ \t]*---[ \t]*@include[ \t]+"([^"]+)"/gm)) {
    if (Object.hasOwn(GENERATED_INCLUDES, match[1]!)) continue;
    const target = path.resolve(path.dirname(file), match[1]!);
    if (found.has(target)) continue;
    found.add(target);
    includedBy(target, found);
  }
  return found;
}

/** Lua's code alone: block comments and line comments dropped. */
const code = (lua: string) => lua.replace(/--\[\[[\s\S]*?\]\]/g, "").replace(/--.*$/gm, "");

/** The comment block a file opens with. */
const header = (file: string) => /^--\[\[([\s\S]*?)\]\]/.exec(readFileSync(file, "utf8"))?.[1] ?? "";

const scripts = scriptPaths().map((file) => path.join(root, file));
const includes = new Set(scripts.flatMap((script) => [...includedBy(script)]));

describe("the Lua scripts", () => {
  it("lists every file it loads, and each one exists", () => {
    expect(scripts.filter((file) => !existsSync(file)).map(rel)).toEqual([]);
    expect(new Set(scripts).size).toBe(scripts.length);
  });

  it("loads every .lua file under server/, as a script or included by one", () => {
    const loaded = new Set([...scripts, ...includes]);
    expect(
      luaFilesUnder(path.join(root, "server"))
        .filter((file) => !loaded.has(file))
        .map(rel),
    ).toEqual([]);
  });

  it("keeps shared Lua in includes/ folders, and scripts out of them", () => {
    expect([...includes].filter((file) => !file.includes(`${path.sep}includes${path.sep}`)).map(rel)).toEqual([]);
    expect(scripts.filter((file) => file.includes(`${path.sep}includes${path.sep}`)).map(rel)).toEqual([]);
  });

  it.each(scripts.map(rel))("%s uses exactly the KEYS its name counts", (file) => {
    const { numberOfKeys } = scriptCommand(file);
    const used = new Set([...code(loadScript(path.join(root, file))).matchAll(/KEYS\[(\d+)\]/g)].map((match) => Number(match[1])));
    expect([...used].sort((a, b) => a - b)).toEqual(Array.from({ length: numberOfKeys }, (_, i) => i + 1));
  });

  it.each(scripts.map(rel))("%s opens with an Input/Output header naming each key", (file) => {
    const text = header(path.join(root, file));
    expect(text).toMatch(/^\s*Input:/m);
    expect(text).toMatch(/^\s*Output:/m);
    const { numberOfKeys } = scriptCommand(file);
    for (let key = 1; key <= numberOfKeys; key++) expect(text).toContain(`KEYS[${key}]`);
  });

  it.each([...includes].map(rel))("%s says what it defines, and reads no KEYS of its own", (file) => {
    expect(header(path.join(root, file))).toMatch(/^\s*Defines:/m);
    expect(code(readFileSync(path.join(root, file), "utf8"))).not.toMatch(/KEYS\[/);
  });
});

describe("the reply codes (server/sale-redis/reply-codes.ts)", () => {
  // As written, includes expanded: the names, before loading makes them numbers.
  const expanded = scripts.map((file) => ({ file: rel(file), lua: code(loadLua(file, GENERATED_INCLUDES)) }));
  const answering = expanded.filter(({ lua }) => /\bREPLY\./.test(lua));

  it("reach the scripts that answer with them", () => {
    expect(answering.map(({ file }) => path.basename(file)).sort()).toEqual([
      "issue-token-5.lua",
      "join-room-4.lua",
      "reserve-unit-7.lua",
      "reserve-unit-with-ticket-7.lua",
      "take-stock-2.lua",
    ]);
  });

  it.each(answering.map(({ file }) => file))("are the only codes %s answers with, each one a member", (file) => {
    const lua = answering.find((script) => script.file === file)!.lua;
    // A reply's code is its table's first element, or a checkPurchase refusal's first value.
    expect(lua).not.toMatch(/return\s*\{\s*-?\d/);
    expect(lua).not.toMatch(/return\s+-?\d+\s*,/);
    const named = [...lua.matchAll(/\bREPLY\.([A-Z_]+)/g)].map((match) => match[1]!);
    expect(named.filter((name) => !Object.hasOwn(REPLY_CODES, name))).toEqual([]);
  });

  it("are numbers once a script is loaded, and a name that is no code fails the load", () => {
    expect(scripts.filter((file) => /\bREPLY\./.test(loadScript(file))).map(rel)).toEqual([]);
    expect(withReplyCodes("return { REPLY.SOLD_OUT, REPLY.OK }")).toBe(`return { ${REPLY_CODES.SOLD_OUT}, ${REPLY_CODES.OK} }`);
    expect(() => withReplyCodes("return REPLY.SOLDOUT")).toThrow(/REPLY\.SOLDOUT is no reply code/);
  });

  it("are distinct", () => {
    expect(new Set(Object.values(REPLY_CODES)).size).toBe(Object.keys(REPLY_CODES).length);
  });
});
