import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { E2E_ADMIN } from "./e2e-env";

/**
 * The server's own sentences reach the person in their language (issue #28): a wrong password on
 * /sign-in says so, in Chinese for a browser set to zh-CN, and never "your session has ended"; an
 * email already taken on /sign-up is the server's sentence in Chinese, not its English.
 * The form is found by its fields, not its labels, so the spec holds whichever language the page
 * around it speaks.
 */

const WRONG_PASSWORD = "not-the-admin-password";

/** The browser logs the refused sign-in (a 401) it was made to see; that one, and only that, is expected. */
function expectOnlyTheRefusedSignIn(consoleErrors: string[]) {
  const refused = consoleErrors.filter((error) => /status of 401/.test(error));
  expect(refused).toHaveLength(1);
  consoleErrors.splice(0, consoleErrors.length, ...consoleErrors.filter((error) => !refused.includes(error)));
}

/** Submits the sign-in or sign-up form with the admin's email: a wrong password, or an email taken. */
async function submitAuthForm(page: Page, path: "/sign-in" | "/sign-up", password: string) {
  await page.goto(path);
  const form = page.locator("form").filter({ has: page.locator('input[name="password"]') });
  await form.locator('input[name="email"]').fill(E2E_ADMIN.email);
  await form.locator('input[name="password"]').fill(password);
  await form.locator('button[type="submit"]').click();
  return form.getByRole("alert");
}

async function signInWithWrongPassword(page: Page) {
  return submitAuthForm(page, "/sign-in", WRONG_PASSWORD);
}

/** The browser logs the refused sign-up (a 409): that one only is expected. */
function expectOnlyTheRefusedSignUp(consoleErrors: string[]) {
  const refused = consoleErrors.filter((error) => /status of 409/.test(error));
  expect(refused).toHaveLength(1);
  consoleErrors.splice(0, consoleErrors.length, ...consoleErrors.filter((error) => !refused.includes(error)));
}

test.describe("a zh-CN browser", () => {
  test.use({ locale: "zh-CN" });

  test("a wrong password says so in Chinese, not that the session ended", async ({ page, consoleErrors }, testInfo) => {
    const alert = await signInWithWrongPassword(page);
    await expect(alert).toHaveText("邮箱或密码错误。");
    await expect(alert).not.toContainText("登录已过期");
    await expect(page).toHaveURL(/\/sign-in/);
    await page.screenshot({ path: testInfo.outputPath("sign-in-wrong-password-zh.png"), fullPage: true });
    expectOnlyTheRefusedSignIn(consoleErrors);
  });

  test("an email already taken says so in Chinese: the server's sentence, not its English", async ({ page, consoleErrors }, testInfo) => {
    const alert = await submitAuthForm(page, "/sign-up", "a-long-enough-password");
    await expect(alert).toHaveText("该邮箱已注册，请直接登录。");
    await page.screenshot({ path: testInfo.outputPath("sign-up-email-taken-zh.png"), fullPage: true });
    expectOnlyTheRefusedSignUp(consoleErrors);
  });

  test("on a phone too", async ({ page, consoleErrors }, testInfo) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const alert = await signInWithWrongPassword(page);
    await expect(alert).toHaveText("邮箱或密码错误。");
    await page.screenshot({ path: testInfo.outputPath("sign-in-wrong-password-zh-phone.png"), fullPage: true });
    expectOnlyTheRefusedSignIn(consoleErrors);
  });
});

test.describe("an English browser", () => {
  test.use({ locale: "en-US" });

  test("a wrong password says so in English, not that the session ended", async ({ page, consoleErrors }, testInfo) => {
    const alert = await signInWithWrongPassword(page);
    await expect(alert).toHaveText("Email or password is wrong.");
    await expect(alert).not.toContainText("session has ended");
    await page.screenshot({ path: testInfo.outputPath("sign-in-wrong-password-en.png"), fullPage: true });
    expectOnlyTheRefusedSignIn(consoleErrors);
  });

  test("an email already taken, in English", async ({ page, consoleErrors }) => {
    const alert = await submitAuthForm(page, "/sign-up", "a-long-enough-password");
    await expect(alert).toHaveText("An account with this email already exists. Sign in instead.");
    expectOnlyTheRefusedSignUp(consoleErrors);
  });
});
