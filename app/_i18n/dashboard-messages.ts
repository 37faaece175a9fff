import type { Lang } from "@/server/i18n";
import type { LedgerState } from "@/server/recovery/invariants";

interface LedgerLine {
  totalStock: number;
  redisStock: number | null;
  pendingReservations: number;
  activeOrders: number;
  dbStock: number;
}

/** The sale dashboard's words. */
const en = {
  ledgerState: { HOLDS: "Invariant holds", NOT_WARMED: "Not warmed up", DRIFT: "Invariant broken" } satisfies Record<LedgerState, string>,
  ratesChart: "Purchases per second",
  ratesCaption: "Purchase attempts, successes and orders written per second",
  attemptsSeries: "attempts/s",
  successesSeries: "successes/s",
  ordersSeries: "orders written/s (worker)",
  rejectionsChart: "Rejections per second",
  rejectionsCaption: "Rejections per second, by reason",
  notWarmedHint: "Redis holds no stock for this sale yet: press Warm up (the worker also warms every sale before its opening).",
  ledgerLine: (l: LedgerLine) =>
    `total ${l.totalStock} = Redis ${l.redisStock ?? "—"} + pending ${l.pendingReservations} + active orders ${l.activeOrders}; DB stock ${l.dbStock} = ${l.totalStock} − ${l.activeOrders}`,
};

const zh: typeof en = {
  ledgerState: { HOLDS: "库存账目一致", NOT_WARMED: "尚未预热", DRIFT: "库存账目不一致" },
  ratesChart: "每秒购买",
  ratesCaption: "每秒购买尝试、成功数与写入的订单数",
  attemptsSeries: "尝试/秒",
  successesSeries: "成功/秒",
  ordersSeries: "写入订单/秒（worker）",
  rejectionsChart: "每秒拒绝",
  rejectionsCaption: "每秒拒绝数（按原因）",
  notWarmedHint: "Redis 中还没有本活动的库存：请点击“预热”（worker 也会在每场活动开始前自动预热）。",
  ledgerLine: (l: LedgerLine) =>
    `总量 ${l.totalStock} = Redis ${l.redisStock ?? "—"} + 待处理预订 ${l.pendingReservations} + 有效订单 ${l.activeOrders}；数据库库存 ${l.dbStock} = ${l.totalStock} − ${l.activeOrders}`,
};

export const DASHBOARD_MESSAGES: Record<Lang, typeof en> = { en, zh };
