import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadLua } from "./lua-include";

let dir: string;
const write = (name: string, text: string) => {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
};

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "lua-include-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("loadLua", () => {
  it("returns a script without includes as it is", () => {
    expect(loadLua(write("plain-1.lua", "return KEYS[1]\n"))).toBe("return KEYS[1]\n");
  });

  it("replaces an include line with the file's text, relative to the including file", () => {
    write("includes/now.lua", "local function now() return 1 end\n");
    const script = write("scripts/run-0.lua", '--- @include "../includes/now.lua"\nreturn now()\n');
    expect(loadLua(script)).toBe("local function now() return 1 end\nreturn now()\n");
  });

  it("expands nested includes, each file once where two include it", () => {
    write("a.lua", '--- @include "c.lua"\nlocal a = c\n');
    write("b.lua", '--- @include "c.lua"\nlocal b = c\n');
    write("c.lua", "local c = 1\n");
    const script = write("both-0.lua", '--- @include "a.lua"\n--- @include "b.lua"\nreturn a + b\n');
    expect(loadLua(script)).toBe("local c = 1\nlocal a = c\n\nlocal b = c\nreturn a + b\n");
  });

  it("takes a generated include's text from the caller, once per script", () => {
    write("uses.lua", '--- @include "@generated/codes.lua"\nlocal u = C.OK\n');
    const script = write("gen-0.lua", '--- @include "@generated/codes.lua"\n--- @include "uses.lua"\nreturn C.OK\n');
    expect(loadLua(script, { "@generated/codes.lua": "local C = { OK = 1 }\n" })).toBe(
      "local C = { OK = 1 }\n\nlocal u = C.OK\nreturn C.OK\n",
    );
    expect(() => loadLua(script)).toThrow(/Lua include not found: .*@generated\/codes\.lua/);
  });

  it("leaves other comments alone", () => {
    const text = '-- @include "nothing.lua" (two dashes: a comment)\n--- @includes "x.lua"\nreturn 1\n';
    expect(loadLua(write("comments-0.lua", text))).toBe(text);
  });

  it("names the missing file and the file that included it", () => {
    const script = write("broken-0.lua", '--- @include "includes/gone.lua"\nreturn 1\n');
    expect(() => loadLua(script)).toThrow(/Lua include not found: .*includes\/gone\.lua \(included from .*broken-0\.lua\)/);
  });

  it("refuses an include loop, naming it", () => {
    write("x.lua", '--- @include "y.lua"\n');
    write("y.lua", '--- @include "x.lua"\n');
    const script = write("loop-0.lua", '--- @include "x.lua"\n');
    expect(() => loadLua(script)).toThrow(/Lua include loop: .*loop-0\.lua -> .*x\.lua -> .*y\.lua -> .*x\.lua/);
  });

  it("refuses a file that includes itself", () => {
    const script = write("self-0.lua", '--- @include "self-0.lua"\n');
    expect(() => loadLua(script)).toThrow(/Lua include loop/);
  });
});
