import type { HTMLAttributes } from "react";

/**
 * The width a table scrolls at: the sum of its columns' fixed widths, so no column is ever
 * squeezed below its width (a narrower screen scrolls the table inside its card instead).
 */
export function tableWidth(columns: readonly { width?: number | string }[]): number {
  return columns.reduce((sum, column) => sum + (typeof column.width === "number" ? column.width : 120), 0);
}

/** A row's attributes for antd's onRow: the test id the specs find a row by. */
export function rowTestId(testId: string): HTMLAttributes<HTMLElement> {
  return rowAttributes({ "data-testid": testId });
}

/** data-* attributes for antd's onRow, whose type names only the HTML ones. */
export function rowAttributes(data: Record<`data-${string}`, string | number>): HTMLAttributes<HTMLElement> {
  return data as HTMLAttributes<HTMLElement>;
}
