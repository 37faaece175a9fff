import type { Lang } from "./i18n";

/**
 * The words of pages served outside React: the front door's "starting…" page (server/cli/starting-door.ts)
 * and the queue board's refusal and way back (server/admin/queue-board.ts). Plain strings only, so
 * the launcher can use them before Next.js is up.
 */
const en = {
  startingTitle: "Starting…",
  startingHeading: "The shop is starting",
  startingBody: "It will be ready in a few seconds. This page reloads by itself.",
  startingReload: "Reload now",
  startingApi: "The shop is starting; try again in a few seconds.",
  adminsOnlyTitle: "Admins only",
  adminsOnlyHeading: "This page is for the shop's admins",
  adminsOnlyBody: "You are signed in with a shopper's account. Sign in as an admin to see the queues.",
  backToShop: "Back to the shop",
  backToConsole: "← Admin console",
  signInAsAdmin: "Sign in as an admin to see the queues.",
};

const zh: typeof en = {
  startingTitle: "正在启动…",
  startingHeading: "商店正在启动",
  startingBody: "几秒钟后即可使用，本页面会自动刷新。",
  startingReload: "立即刷新",
  startingApi: "商店正在启动，请几秒钟后重试。",
  adminsOnlyTitle: "仅限管理员",
  adminsOnlyHeading: "此页面仅供商店管理员使用",
  adminsOnlyBody: "您当前登录的是顾客账号。请使用管理员账号登录后查看队列。",
  backToShop: "返回商店",
  backToConsole: "← 返回管理后台",
  signInAsAdmin: "请使用管理员账号登录后查看队列。",
};

export type StartMessages = typeof en;
export const START_MESSAGES: Record<Lang, StartMessages> = { en, zh };
