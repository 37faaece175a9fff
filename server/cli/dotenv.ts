import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { withFileLock } from "./file-lock";

/**
 * The `.env` writer of `npm start`'s demo: it adds values a fresh machine lacks (generated
 * secrets) and never changes a line that is there. A name counts as set when the environment or
 * the file has it, even empty.
 */

export type Generators = Readonly<Record<string, () => string>>;

/** The wanted names neither the environment nor the file's text sets, each with a fresh value. */
export function missingEntries(
  fileText: string,
  environment: Readonly<Record<string, string | undefined>>,
  wanted: Generators,
): Record<string, string> {
  const inFile = parseEnv(fileText);
  const missing: Record<string, string> = {};
  for (const [name, generate] of Object.entries(wanted)) {
    if (environment[name] === undefined && inFile[name] === undefined) missing[name] = generate();
  }
  return missing;
}

/** The text to append to `fileText` for `entries`: a comment line, then `NAME=value` lines. */
export function appendedText(fileText: string, entries: Readonly<Record<string, string>>, comment: string): string {
  const names = Object.keys(entries);
  if (names.length === 0) return "";
  for (const [name, value] of Object.entries(entries)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || /[\s"'#\\]/.test(value))
      throw new Error(`cannot write ${name} to .env: name or value needs quoting`);
  }
  const separator = fileText === "" ? "" : fileText.endsWith("\n") ? "\n" : "\n\n";
  return `${separator}# ${comment}\n${names.map((name) => `${name}=${entries[name]}`).join("\n")}\n`;
}

export interface EnvFileResult {
  /** Names this call appended. */
  written: string[];
  /** Every wanted name's value as it now stands: the environment's, else the file's. */
  values: Record<string, string>;
}

/**
 * Appends to `file` (creating it) each wanted name that neither `environment` nor the file sets,
 * under a lock and after reading the file again, so a value another process just wrote is kept.
 */
export function addMissingToEnvFile(
  file: string,
  environment: Readonly<Record<string, string | undefined>>,
  wanted: Generators,
  comment: string,
): EnvFileResult {
  // Processes starting at once on one checkout take turns, so they agree on the values.
  return withFileLock(
    `${file}.lock`,
    () => {
      const text = existsSync(file) ? readFileSync(file, "utf8") : "";
      const missing = missingEntries(text, environment, wanted);
      const addition = appendedText(text, missing, comment);
      if (addition) appendFileSync(file, addition);
      const inFile = parseEnv(text + addition);
      const values: Record<string, string> = {};
      for (const name of Object.keys(wanted)) values[name] = environment[name] ?? inFile[name]!;
      return { written: Object.keys(missing), values };
    },
    { timeoutMs: 20_000 },
  );
}
