import { expect, test as base } from "@playwright/test";

/**
 * `test` for every spec: fails a test whose pages logged a console error or threw, since a
 * journey that "works" with errors in the console is one refactor away from not working.
 */
export const test = base.extend<{ consoleErrors: string[] }>({
  consoleErrors: [
    async ({ context }, use) => {
      const errors: string[] = [];
      const watch = (page: import("@playwright/test").Page) => {
        page.on("console", (message) => {
          if (message.type() === "error") errors.push(`${page.url()}: ${message.text()}`);
        });
        page.on("pageerror", (error) => errors.push(`${page.url()}: ${error.message}`));
      };
      context.pages().forEach(watch);
      context.on("page", watch);
      await use(errors);
      expect(errors, "console errors during the journey").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
