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
  roomPanel: "Waiting room",
  roomNotLoaded: "The waiting room is not loaded in Redis yet: press Warm up.",
  roomWaiting: "Waiting",
  roomAdmitted: "Admitted",
  roomJoined: "Joined",
  roomRate: "Admission rate",
  roomRateValue: (rate: number) => `${rate.toLocaleString("en")} places/s`,
  roomOldestWait: "Oldest wait",
  roomOldestWaitValue: (seconds: number) => `${seconds.toLocaleString("en")} s`,
  roomOrder: { RANDOM: "early arrivals: random draw at the opening", ARRIVAL: "order of arrival" } as Record<"RANDOM" | "ARRIVAL", string>,
  roomNotDrawn: "places not drawn yet",
  roomDrawn: (drawn: number) => `${drawn.toLocaleString("en")} drawn at the opening`,
  roomChallenge: "proof-of-work challenge on",
  admittedChart: "Admitted per second",
  admittedCaption: "Places admitted from the waiting room per second (sampled at each reading)",
  admittedSeries: "admitted/s",
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
  roomPanel: "排队室",
  roomNotLoaded: "排队室尚未加载到 Redis：请点击“预热”。",
  roomWaiting: "排队中",
  roomAdmitted: "已放行",
  roomJoined: "已加入",
  roomRate: "放行速率",
  roomRateValue: (rate: number) => `每秒 ${rate.toLocaleString("zh")} 人`,
  roomOldestWait: "最长等待",
  roomOldestWaitValue: (seconds: number) => `${seconds.toLocaleString("zh")} 秒`,
  roomOrder: { RANDOM: "提前到达：开场时随机抽签", ARRIVAL: "按到达先后" },
  roomNotDrawn: "尚未抽签排位",
  roomDrawn: (drawn: number) => `开场时抽签 ${drawn.toLocaleString("zh")} 人`,
  roomChallenge: "已开启人机验证",
  admittedChart: "每秒放行",
  admittedCaption: "每秒从排队室放行的人数（每次读取时采样）",
  admittedSeries: "放行/秒",
  notWarmedHint: "Redis 中还没有本活动的库存：请点击“预热”（worker 也会在每场活动开始前自动预热）。",
  ledgerLine: (l: LedgerLine) =>
    `总量 ${l.totalStock} = Redis ${l.redisStock ?? "—"} + 待处理预订 ${l.pendingReservations} + 有效订单 ${l.activeOrders}；数据库库存 ${l.dbStock} = ${l.totalStock} − ${l.activeOrders}`,
};

export const DASHBOARD_MESSAGES: Record<Lang, typeof en> = { en, zh };
