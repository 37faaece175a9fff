/**
 * Strings by index, packed into one buffer. The load generator keeps a bearer token per shopper;
 * a million of them as heap strings were a million objects for every major collection of its heap
 * to mark, whose helper threads then took the second core from the service under test
 *. Read back one at a time, each a short-lived string.
 */
export class PackedStrings {
  private readonly bytes: Buffer;
  /** end offset of string i in `bytes`; string i starts where i - 1 ends */
  private readonly ends: Float64Array;

  constructor(values: readonly string[]) {
    this.ends = new Float64Array(values.length);
    let size = 0;
    values.forEach((value, i) => (this.ends[i] = size += Buffer.byteLength(value)));
    this.bytes = Buffer.allocUnsafe(size);
    values.forEach((value, i) => this.bytes.write(value, i === 0 ? 0 : this.ends[i - 1]!));
  }

  get length(): number {
    return this.ends.length;
  }

  /** String `index`, or undefined past the end (like an array's `at`, without negative indexes). */
  at(index: number): string | undefined {
    if (!(index >= 0 && index < this.ends.length)) return undefined;
    return this.bytes.toString("utf8", index === 0 ? 0 : this.ends[index - 1], this.ends[index]);
  }
}

/** What a crowd needs of the shoppers' bearer tokens: an array, or the same packed. */
export type Bearers = Pick<readonly string[], "length" | "at">;
