import type { Lang } from "@/server/platform/i18n";

/** The account journeys' own words: the header, My orders' cancel step, the cashier, the 404 page, email verification. */
const en = {
  // Header
  signedInAs: (email: string) => `Signed in as ${email}`,
  // My orders: the step before giving up a won unit
  confirmCancel: (orderId: number) => `Give up order #${orderId}? The unit goes back on sale.`,
  confirmCancelYes: "Give up order",
  confirmCancelNo: "Keep order",
  cancelling: "Cancelling…",
  productImage: (name: string) => name,
  noProductImage: "No picture",
  // Back from the cashier after Decline
  paymentDeclined: (orderId: number) => `You declined the payment for order #${orderId}: nothing was paid.`,
  payAgain: "Pay again",
  // The sandbox cashier, reached again (Back) after the payment
  alreadyPaid: "Already paid — see My orders",
  alreadyPaidNote: "This payment went through; there is nothing more to confirm.",
  tradeClosedSeeOrders: "Back to My orders",
  // 404
  pageNotFoundTitle: "Page not found",
  pageNotFoundText: "There is nothing at this address. It may have moved, or the link may be mistyped.",
  // Verified contacts: the /verify page and the "not verified" line beside Buy
  verifyTitle: "Email verification",
  verifying: "Verifying your email…",
  verified: "Your email is verified. Thank you!",
  linkUsed: "This link has already been used.",
  linkExpired: "This link has expired.",
  linkInvalid: "This link is not valid. Open the latest link we sent you.",
  linkMissing: "Open this page from the link in your email.",
  alreadyVerified: "Your email is verified.",
  signInToResend: "Sign in to get a new link.",
  notVerified: "Your email is not verified",
  sendAgain: "Send again",
  sending: "Sending…",
  sentTo: (email: string) => `We sent a new link to ${email}. It may take a minute to arrive.`,
};

const zh: typeof en = {
  signedInAs: (email) => `已登录：${email}`,
  confirmCancel: (orderId) => `放弃订单 #${orderId}？这件商品将重新开放抢购。`,
  confirmCancelYes: "放弃订单",
  confirmCancelNo: "保留订单",
  cancelling: "正在取消…",
  productImage: (name) => name,
  noProductImage: "暂无图片",
  paymentDeclined: (orderId) => `您已拒绝为订单 #${orderId} 付款，没有扣款。`,
  payAgain: "重新付款",
  alreadyPaid: "已支付 — 查看我的订单",
  alreadyPaidNote: "这笔付款已完成，无需再次确认。",
  tradeClosedSeeOrders: "返回我的订单",
  pageNotFoundTitle: "页面不存在",
  pageNotFoundText: "这个地址没有内容。页面可能已移走，或链接有误。",
  verifyTitle: "邮箱验证",
  verifying: "正在验证您的邮箱…",
  verified: "您的邮箱已验证，谢谢！",
  linkUsed: "该链接已使用过。",
  linkExpired: "该链接已过期。",
  linkInvalid: "该链接无效。请打开我们最近发给您的链接。",
  linkMissing: "请通过邮件中的链接打开本页面。",
  alreadyVerified: "您的邮箱已验证。",
  signInToResend: "登录后可重新获取链接。",
  notVerified: "您的邮箱尚未验证",
  sendAgain: "重新发送",
  sending: "正在发送…",
  sentTo: (email) => `新链接已发送至 ${email}，可能需要一分钟左右送达。`,
};

export type AccountMessages = typeof en;
export const ACCOUNT_MESSAGES: Record<Lang, AccountMessages> = { en, zh };
