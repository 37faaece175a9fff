import type { Browser, Page } from "@playwright/test";
import type { CaughtMail } from "../server/testing/smtp-catcher";
import { verificationLinkIn } from "../server/testing/smtp-catcher";
import { expect, test } from "./fixtures";
import { e2eBaseUrl, e2eMailPort } from "./e2e-env";
import { newEmail, PASSWORD } from "./shop";

/**
 * Verified contacts (issue #42): a shopper signs up, the shop mails a link through a real SMTP
 * server (the mail catcher, e2e/mail-catcher.ts), the shopper opens it and reads "verified"; in
 * English on a desktop and in Chinese on a 390×844 phone, where a spoiled link offers Send again.
 * Buying on a sale that requires a verified contact is not here: that sale switch is not on this
 * branch yet.
 */

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 720 };

/** The messages to `to` the catcher holds, once there are at least `count`. */
async function mailTo(to: string, count = 1): Promise<CaughtMail[]> {
  let messages: CaughtMail[] = [];
  await expect
    .poll(
      async () => {
        const answer = await fetch(`http://127.0.0.1:${e2eMailPort("mailbox")}/mail?to=${encodeURIComponent(to)}`);
        messages = (await answer.json()) as CaughtMail[];
        return messages.length;
      },
      { timeout: 15_000, message: `${count} mail(s) to ${to}` },
    )
    .toBeGreaterThanOrEqual(count);
  return messages;
}

/** The link's path and query, opened on this run's app (the mail names PUBLIC_BASE_URL, the same place). */
const pathOf = (mail: CaughtMail) => {
  const link = verificationLinkIn(mail);
  expect(link.origin).toBe(e2eBaseUrl());
  return `${link.pathname}${link.search}`;
};

async function newShopperPage(browser: Browser, options: { lang: "en" | "zh"; viewport: { width: number; height: number } }) {
  const context = await browser.newContext({ baseURL: e2eBaseUrl(), viewport: options.viewport, locale: options.lang === "zh" ? "zh-CN" : "en-US" });
  return { context, page: await context.newPage() };
}

/** Signs up on /sign-up in the page's language; the shop mails the link meanwhile. */
async function signUp(page: Page, words: { title: string; email: string; password: string; button: string; signOut: string }): Promise<string> {
  const email = newEmail();
  await page.goto("/sign-up");
  const form = page.getByRole("region", { name: words.title });
  await form.getByLabel(words.email).fill(email);
  await form.getByLabel(words.password).fill(PASSWORD);
  await form.getByRole("button", { name: words.button }).click();
  await expect(page.getByRole("button", { name: words.signOut })).toBeVisible();
  return email;
}

async function expectNoOverflow(page: Page) {
  const { scroll, client } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  expect(scroll, `page ${page.url()} is ${scroll}px wide in a ${client}px viewport`).toBeLessThanOrEqual(client);
}

test("English, desktop: sign up, open the mailed link, verified; the same link again is used", async ({ browser }) => {
  const { context, page } = await newShopperPage(browser, { lang: "en", viewport: DESKTOP });
  const email = await signUp(page, { title: "Create your account", email: "Email", password: "Password", button: "Sign up", signOut: "Sign out" });
  const [mail] = await mailTo(email);
  expect(mail!.subject).toBe("Confirm your email · 验证您的邮箱");

  await page.goto(pathOf(mail!));
  const card = page.getByRole("region", { name: "Email verification" });
  await expect(card.getByTestId("verify-result")).toHaveText("Your email is verified. Thank you!");
  await page.screenshot({ path: test.info().outputPath("verified-en-desktop.png"), fullPage: true });

  await page.reload();
  await expect(card.getByTestId("verify-result")).toHaveText("This link has already been used.");
  await expect(card.getByText("Your email is verified.", { exact: true })).toBeVisible();
  await expect(card.getByTestId("contact-unverified")).toHaveCount(0);
  await context.close();
});

test("Chinese, phone: a spoiled link offers Send again; the new mail's link verifies", async ({ browser }) => {
  const { context, page } = await newShopperPage(browser, { lang: "zh", viewport: PHONE });
  const email = await signUp(page, { title: "创建账号", email: "邮箱", password: "密码", button: "注册", signOut: "退出登录" });
  const [first] = await mailTo(email);

  // The link with one character of its signature changed: refused, nothing spent.
  const spoiled = pathOf(first!).replace(/.$/, (last) => (last === "A" ? "B" : "A"));
  await page.goto(spoiled);
  const card = page.getByRole("region", { name: "邮箱验证" });
  await expect(card.getByTestId("verify-result")).toHaveText("该链接无效。请打开我们最近发给您的链接。");
  const unverified = card.getByTestId("contact-unverified");
  await expect(unverified).toContainText("您的邮箱尚未验证");
  await expectNoOverflow(page);
  await page.screenshot({ path: test.info().outputPath("spoiled-zh-phone.png"), fullPage: true });

  await unverified.getByRole("button", { name: "重新发送" }).click();
  await expect(unverified.getByRole("status")).toHaveText(`新链接已发送至 ${email}，可能需要一分钟左右送达。`);
  // Again at once: the shop says how long to wait, in Chinese.
  await unverified.getByRole("button", { name: "重新发送" }).click();
  await expect(unverified.getByRole("alert")).toHaveText(/^刚刚已发送过新链接，请 (1 分钟|\d+ 秒)后再试。$/);

  const messages = await mailTo(email, 2);
  await page.goto(pathOf(messages[1]!));
  await expect(card.getByTestId("verify-result")).toHaveText("您的邮箱已验证，谢谢！");
  await expect(card.getByTestId("contact-unverified")).toHaveCount(0);
  await expectNoOverflow(page);
  await page.screenshot({ path: test.info().outputPath("verified-zh-phone.png"), fullPage: true });
  await context.close();
});
