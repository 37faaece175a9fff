import { expect, type Locator, type Page } from "@playwright/test";

/** The console's antd widgets, driven as an operator does: click, then choose. */

/** Chooses `label` in the antd Select labelled `field` (its options open in a layer at the page's end). */
export async function pickOption(page: Page, field: Locator, label: string) {
  await field.click();
  const option = page
    .locator(".ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option")
    .filter({ hasText: new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) });
  await option.click();
  await expect(page.locator(".ant-select-dropdown:not(.ant-select-dropdown-hidden)")).toHaveCount(0);
}

/** A console table's data rows (antd adds a hidden measuring row, which this leaves out). */
export function tableRows(table: Locator): Locator {
  return table.locator("tbody tr[data-row-key]");
}

/** No page of the console scrolls sideways: wide tables scroll inside their cards. */
export async function noSidewaysScroll(page: Page) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth, `page ${page.url()} is ${scrollWidth}px wide on a ${innerWidth}px screen`).toBeLessThanOrEqual(innerWidth);
}
