import type { Registry } from "prom-client";

interface Cell {
  labels: Record<string, string>;
  buckets: Float64Array;
  sum: number;
  count: number;
}

/** A metric's reading in the shape prom-client's Registry renders (what its own metrics' get() returns). */
interface Reading {
  name: string;
  help: string;
  type: "histogram";
  aggregator: "sum";
  values: { labels: Record<string, string | number>; value: number; metricName: string }[];
}

/**
 * A Prometheus histogram with two labels whose observe is a map lookup and two additions, for the
 * purchase path's answers (tens of thousands a second): prom-client's Histogram hashes a label
 * object on every call. It registers in a prom-client Registry as a metric (name, help, type,
 * get()), so /api/metrics renders it beside the others; two-label-histogram.test.ts holds it to
 * prom-client's own Histogram's text, and fails if the library's rendering changes under it.
 */
export class TwoLabelHistogram<A extends string, B extends string> {
  readonly type = "histogram";
  readonly aggregator = "sum";
  // first label -> second label -> cell: no key string built per observation.
  private readonly cells = new Map<string, Map<string, Cell>>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly [A, B],
    private readonly upperBounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never);
  }

  observe(first: string, second: string, value: number): void {
    let row = this.cells.get(first);
    if (!row) this.cells.set(first, (row = new Map()));
    let cell = row.get(second);
    if (!cell) {
      cell = {
        labels: { [this.labelNames[0]]: first, [this.labelNames[1]]: second },
        buckets: new Float64Array(this.upperBounds.length),
        sum: 0,
        count: 0,
      };
      row.set(second, cell);
    }
    const bounds = this.upperBounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        cell.buckets[i]! += 1;
        break;
      }
    }
    cell.sum += value;
    cell.count += 1;
  }

  /** Every series's count, by the two label values (tests and the bench's cross-check read it). */
  counts(): { labels: Record<string, string>; count: number }[] {
    return [...this.allCells()].map((cell) => ({ labels: { ...cell.labels }, count: cell.count }));
  }

  private *allCells(): Generator<Cell> {
    for (const row of this.cells.values()) yield* row.values();
  }

  reset(): void {
    this.cells.clear();
  }

  get(): Reading {
    const values: Reading["values"] = [];
    for (const cell of this.allCells()) {
      let cumulative = 0;
      for (let i = 0; i < this.upperBounds.length; i++) {
        cumulative += cell.buckets[i]!;
        values.push({ labels: { le: this.upperBounds[i]!, ...cell.labels }, value: cumulative, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: { le: "+Inf", ...cell.labels }, value: cell.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { ...cell.labels }, value: cell.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...cell.labels }, value: cell.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}
