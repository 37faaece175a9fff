import type { Lang } from "@/server/i18n";

/** The account journeys' own words: the header, My orders' cancel step, the cashier, the 404 page. */
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
  alreadyPaidNote: "这笔付款已完成,无需再次确认。",
  tradeClosedSeeOrders: "返回我的订单",
  pageNotFoundTitle: "页面不存在",
  pageNotFoundText: "这个地址没有内容。页面可能已移走,或链接有误。",
};

export type AccountMessages = typeof en;
export const ACCOUNT_MESSAGES: Record<Lang, AccountMessages> = { en, zh };
