import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { addMissingToEnvFile, appendedText, missingEntries } from "./dotenv";

/** The .env writer of npm start's demo: it appends only missing names and never changes a line. */

const wanted = { SESSION_SECRET: () => "s".repeat(40), SANDBOX_PAY_KEY: () => "k".repeat(40), PAYMENT_PROVIDERS: () => "sandbox" };
const dirs: string[] = [];
const tempFile = (text?: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), "dotenv-"));
  dirs.push(dir);
  const file = path.join(dir, ".env");
  if (text !== undefined) writeFileSync(file, text);
  return file;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("missingEntries", () => {
  it("generates only the names neither the environment nor the file sets, empty values counting as set", () => {
    const missing = missingEntries("SESSION_SECRET=mine\n# SANDBOX_PAY_KEY=commented out\n", { PAYMENT_PROVIDERS: "" }, wanted);
    expect(missing).toEqual({ SANDBOX_PAY_KEY: "k".repeat(40) });
    expect(missingEntries("", {}, wanted)).toEqual({
      SESSION_SECRET: "s".repeat(40),
      SANDBOX_PAY_KEY: "k".repeat(40),
      PAYMENT_PROVIDERS: "sandbox",
    });
    expect(missingEntries("SESSION_SECRET=a\nSANDBOX_PAY_KEY=b\n", { PAYMENT_PROVIDERS: "alipay" }, wanted)).toEqual({});
  });
});

describe("appendedText", () => {
  it("starts on a new line after a file without a final newline, and adds nothing for nothing", () => {
    expect(appendedText("A=1", { B: "2" }, "why")).toBe("\n\n# why\nB=2\n");
    expect(appendedText("A=1\n", { B: "2", C: "3" }, "why")).toBe("\n# why\nB=2\nC=3\n");
    expect(appendedText("", { B: "2" }, "why")).toBe("# why\nB=2\n");
    expect(appendedText("A=1\n", {}, "why")).toBe("");
  });

  it("refuses a value that would need quoting rather than write a line that reads back differently", () => {
    expect(() => appendedText("", { B: "has space" }, "why")).toThrow(/quoting/);
    expect(() => appendedText("", { "B-C": "x" }, "why")).toThrow(/quoting/);
  });
});

describe("addMissingToEnvFile", () => {
  it("keeps every existing byte, appends the missing names, and reports the values in force", () => {
    const before = "# mine\nDATABASE_URL=mysql://root@127.0.0.1:3306/other\nSESSION_SECRET=keep-this-one-exactly-as-it-is-0123456789\n";
    const file = tempFile(before);
    const result = addMissingToEnvFile(file, { PAYMENT_PROVIDERS: "alipay" }, wanted, "generated");
    expect(result.written).toEqual(["SANDBOX_PAY_KEY"]);
    expect(result.values).toEqual({
      SESSION_SECRET: "keep-this-one-exactly-as-it-is-0123456789",
      SANDBOX_PAY_KEY: "k".repeat(40),
      PAYMENT_PROVIDERS: "alipay",
    });
    const after = readFileSync(file, "utf8");
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).toBe(`\n# generated\nSANDBOX_PAY_KEY=${"k".repeat(40)}\n`);
  });

  it("creates a missing file, and a second run writes nothing", () => {
    const file = tempFile();
    expect(addMissingToEnvFile(file, {}, wanted, "generated").written).toEqual(["SESSION_SECRET", "SANDBOX_PAY_KEY", "PAYMENT_PROVIDERS"]);
    const once = readFileSync(file, "utf8");
    expect(addMissingToEnvFile(file, {}, { ...wanted, SESSION_SECRET: () => "other".repeat(10) }, "generated").written).toEqual([]);
    expect(readFileSync(file, "utf8")).toBe(once);
  });

  it("processes writing at once take turns through the lock and agree on one value per name", async () => {
    const file = tempFile("A=1\n");
    // Held by this test until every writer is waiting on it, so they all go at once after.
    writeFileSync(`${file}.lock`, String(process.pid));
    const writer = `
      import { randomBytes } from "node:crypto";
      import { addMissingToEnvFile } from ${JSON.stringify(path.resolve("server/cli/dotenv.ts"))};
      console.log("ready");
      const r = addMissingToEnvFile(process.argv[1], {}, { SECRET: () => randomBytes(16).toString("hex") }, "generated");
      console.log(r.values.SECRET);`;
    let ready = 0;
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", writer, file], {
          stdio: ["ignore", "pipe", "inherit"],
        });
        let out = "";
        child.stdout.on("data", (chunk) => {
          out += String(chunk);
          if (String(chunk).includes("ready")) ready++;
        });
        child.on("exit", (code) => (code === 0 ? resolve(out.replace("ready", "").trim()) : reject(new Error(`writer exited ${code}`))));
      });
    const writers = Promise.all([run(), run(), run(), run()]);
    while (ready < 4) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    expect(readFileSync(file, "utf8")).toBe("A=1\n");
    unlinkSync(`${file}.lock`);
    const seen = await writers;
    expect(new Set(seen).size).toBe(1);
    const text = readFileSync(file, "utf8");
    expect(text.match(/^SECRET=/gm)).toHaveLength(1);
    expect(text).toContain(`SECRET=${seen[0]}`);
  });
});
