import "../lib/browser-zod";
import { z } from "zod";
import { MAX_STOCK_BUCKETS } from "../sale-redis/buckets";
import type { Lang, Localized } from "../platform/i18n";

/**
 * What an operator types to create or edit a sale and its product. Pure (no server imports), so
 * the admin form and the tRPC procedures validate with the same rules and field messages.
 */

// Zod carries one string per issue: the English one, which the form turns back into the
// operator's language with fieldMessageIn (the tRPC error formatter passes field errors as they are).
const TRANSLATIONS = new Map<string, Localized>();
function say(text: Localized): string {
  TRANSLATIONS.set(text.en, text);
  return text.en;
}

/** A field message from these rules in the operator's language (any other text as it is). */
export function fieldMessageIn(lang: Lang, message: string): string {
  return TRANSLATIONS.get(message)?.[lang] ?? message;
}

// "Too large" first and alone: a huge amount in yuan is past safe integers as cents, and "must be
// whole cents" beside it would send the operator after the wrong problem.
const cents = (what: Localized) =>
  z
    .number({ error: say({ en: `${what.en} must be a number`, zh: `${what.zh}必须是数字` }) })
    .max(100_000_000, { error: say({ en: `${what.en} is too large`, zh: `${what.zh}过大` }), abort: true })
    .int(say({ en: `${what.en} must be whole cents`, zh: `${what.zh}最多精确到分` }))
    .min(1, say({ en: `${what.en} must be at least 1 cent`, zh: `${what.zh}至少为 1 分` }));

/** Where a product image may come from: this site's own files, or an HTTPS address. */
export function isImageUrl(value: string): boolean {
  if (/^\/(?!\/)[^\s\\]*$/.test(value)) return true;
  try {
    const url = new URL(value);
    return url.protocol === "https:" && url.hostname.length > 0;
  } catch {
    return false;
  }
}

const imageUrl = z
  .string()
  .trim()
  .max(500, say({ en: "Keep the image URL under 500 characters", zh: "图片地址不能超过 500 个字符" }))
  .refine(
    (v) => v === "" || isImageUrl(v),
    say({
      en: "Use a path on this site (starting with /) or an https:// address",
      zh: "请填写本站路径（以 / 开头）或 https:// 开头的地址",
    }),
  )
  .transform((v) => (v === "" ? null : v))
  .nullable()
  .default(null);

/** Places per second a waiting room may admit at most. */
export const MAX_ADMISSION_RATE = 1_000_000;

const saleFields = z.object({
  productName: z
    .string()
    .trim()
    .min(1, say({ en: "Enter the product's name", zh: "请填写商品名称" }))
    .max(191, say({ en: "Keep the name under 191 characters", zh: "名称不能超过 191 个字符" })),
  description: z
    .string()
    .trim()
    .max(2000, say({ en: "Keep the description under 2000 characters", zh: "描述不能超过 2000 个字符" }))
    .default(""),
  imageUrl,
  originalPriceCents: cents({ en: "The original price", zh: "原价" }),
  priceCents: cents({ en: "The sale price", zh: "秒杀价" }),
  unitLimit: z
    .number({ error: say({ en: "Units per shopper must be a number", zh: "每人限购件数必须是数字" }) })
    .int(say({ en: "Units per shopper must be a whole number", zh: "每人限购件数必须是整数" }))
    .min(1, say({ en: "Allow at least 1 unit per shopper", zh: "每人至少可买 1 件" }))
    .max(100, say({ en: "At most 100 units per shopper", zh: "每人最多限购 100 件" })),
  startsAt: z.coerce.date({ error: say({ en: "Enter when the sale starts", zh: "请填写开始时间" }) }),
  endsAt: z.coerce.date({ error: say({ en: "Enter when the sale ends", zh: "请填写结束时间" }) }),
  requireRealName: z.boolean().default(false),
  // Left out of a new sale: the shop's default (on in production; createSaleFromForm).
  requireVerifiedContact: z.boolean().optional(),
  accountsCreatedBefore: z.coerce
    .date({
      error: say({ en: "Enter a valid moment for the newest accounts allowed, or leave it empty", zh: "请填写有效的注册截止时间，或留空" }),
    })
    .nullable()
    .default(null),
  minMemberLevel: z
    .number({ error: say({ en: "The member level must be a number", zh: "会员等级必须是数字" }) })
    .int(say({ en: "The member level must be a whole number", zh: "会员等级必须是整数" }))
    .min(0, say({ en: "Member levels start at 0", zh: "会员等级从 0 开始" }))
    .max(100, say({ en: "Member levels go up to 100", zh: "会员等级最高为 100" }))
    .default(0),
  // Waiting room (issue #31): 0 = none, the sale is bought with purchase tokens as before.
  admissionRate: z
    .number({ error: say({ en: "The admission rate must be a number", zh: "放行速率必须是数字" }) })
    .int(say({ en: "The admission rate must be a whole number of places per second", zh: "放行速率必须是每秒整数人" }))
    .min(0, say({ en: "The admission rate cannot be negative (0 = no waiting room)", zh: "放行速率不能为负数（0 = 不排队）" }))
    .max(MAX_ADMISSION_RATE, say({ en: "At most 1,000,000 places per second", zh: "每秒最多放行 1,000,000 人" }))
    .default(0),
  arrivalOrder: z
    .enum(["RANDOM", "ARRIVAL"], { error: say({ en: "Choose how early arrivals are ordered", zh: "请选择提前到达顾客的排序方式" }) })
    .default("RANDOM"),
  purchaseChallenge: z.boolean().default(false),
});

type SaleFields = z.infer<typeof saleFields>;

export const CHALLENGE_WITHOUT_ROOM = say({
  en: "The proof-of-work challenge needs a waiting room: set an admission rate above 0, or turn the challenge off",
  zh: "人机验证需要排队室：请把放行速率设为大于 0，或关闭人机验证",
});

export const REAL_NAME_ONE_BUCKET = say({
  en: "A real-name sale keeps its stock in 1 part, so one person's accounts share one limit",
  zh: "实名秒杀的库存只能为 1 份，这样同一人的多个账号共用一个限购数量",
});

const ENDS_BEFORE_START = say({ en: "The sale must end after it starts", zh: "结束时间必须晚于开始时间" });
const PRICE_ABOVE_ORIGINAL = say({ en: "The sale price cannot be above the original price", zh: "秒杀价不能高于原价" });

type AcrossFields = Partial<
  Pick<SaleFields, "priceCents" | "originalPriceCents" | "startsAt" | "endsAt" | "admissionRate" | "purchaseChallenge">
>;

/**
 * Rules between two fields, as field → message; a rule whose fields are not both given (a partial
 * edit) waits for the merged terms. Exported for the form, which shows them with every other field's
 * problem at once (zod skips an object's refinements while a field of it fails).
 */
export function acrossFieldProblems(value: AcrossFields): { field: "purchaseChallenge" | "endsAt" | "priceCents"; message: string }[] {
  const problems: { field: "purchaseChallenge" | "endsAt" | "priceCents"; message: string }[] = [];
  // The challenge is solved while waiting and bound to the room's seat: no room, no challenge.
  if (value.purchaseChallenge && value.admissionRate === 0) problems.push({ field: "purchaseChallenge", message: CHALLENGE_WITHOUT_ROOM });
  if (value.endsAt && value.startsAt && value.endsAt <= value.startsAt) problems.push({ field: "endsAt", message: ENDS_BEFORE_START });
  if (value.priceCents !== undefined && value.originalPriceCents !== undefined && value.priceCents > value.originalPriceCents) {
    problems.push({ field: "priceCents", message: PRICE_ABOVE_ORIGINAL });
  }
  return problems;
}

function checkAcrossFields(value: AcrossFields, ctx: z.RefinementCtx) {
  for (const { field, message } of acrossFieldProblems(value)) ctx.addIssue({ code: "custom", path: [field], message });
}

/**
 * How far in the past a new start may be and still count as "now": the operator's browser clock
 * and the server's differ by a little, and filling in the form takes a moment.
 */
export const START_GRACE_MS = 60_000;

export const START_IN_PAST: Localized = {
  en: "The sale's start is in the past. Choose a start from now on; a sale that should open at once can start in a minute.",
  zh: "活动开始时间已经过去。请选择现在之后的时间；想立即开始的活动可以设为一分钟后开始。",
};

/**
 * A start in the past is refused for a new sale, and for an edit that moves the start (a live
 * sale keeps the start it opened with). Shared by the form (before sending) and the server.
 */
export function startIsInPast(startsAt: Date, now: Date, previousStartsAt?: Date): boolean {
  if (previousStartsAt && previousStartsAt.getTime() === startsAt.getTime()) return false;
  return startsAt.getTime() < now.getTime() - START_GRACE_MS;
}

export const newSaleInput = saleFields
  .extend({
    stock: z
      .number({ error: say({ en: "Stock must be a number", zh: "库存必须是数字" }) })
      .int(say({ en: "Stock must be whole units", zh: "库存必须是整数件" }))
      .min(1, say({ en: "Stock must be at least 1", zh: "库存至少为 1 件" }))
      .max(10_000_000, say({ en: "At most 10,000,000 units", zh: "库存最多 10,000,000 件" })),
    // Fixed at creation: reservation ids and orders name their bucket. More than 1 only for an
    // item hot enough to need several Redis shards (docs/architecture.md, stock buckets).
    stockBuckets: z
      .number({ error: say({ en: "The number of parts must be a number", zh: "拆分份数必须是数字" }) })
      .int(say({ en: "Whole parts only", zh: "拆分份数必须是整数" }))
      .min(1, say({ en: "At least 1 part", zh: "至少 1 份" }))
      .max(MAX_STOCK_BUCKETS, say({ en: `At most ${MAX_STOCK_BUCKETS} parts`, zh: `最多 ${MAX_STOCK_BUCKETS} 份` }))
      .default(1),
  })
  .superRefine((value, ctx) => {
    checkAcrossFields(value, ctx);
    // A real-name sale counts a person's units in their home bucket: one bucket, so two accounts
    // of one person always meet the same count (includes/count-shopper.lua).
    if (value.requireRealName && value.stockBuckets > 1)
      ctx.addIssue({ code: "custom", path: ["stockBuckets"], message: REAL_NAME_ONE_BUCKET });
    if (value.stock >= 1 && value.stockBuckets > value.stock) {
      ctx.addIssue({
        code: "custom",
        path: ["stockBuckets"],
        message: say({ en: "No more parts than units", zh: "拆分份数不能多于库存件数" }),
      });
    }
  });
export type NewSaleInput = z.infer<typeof newSaleInput>;

/** A sale's terms whole, as an edit leaves them once merged with what is stored. */
export const saleTerms = saleFields.superRefine(checkAcrossFields);
export type SaleTerms = z.infer<typeof saleTerms>;

/**
 * An edit changes the fields it names and keeps the rest: a field left out is not reset to a new
 * sale's default (an API client editing the price must not close the waiting room). Editing never
 * touches stock: that goes through admin.adjustStock (the stock ledger).
 */
export const saleEditInput = saleFields
  .extend({
    description: saleFields.shape.description.unwrap(),
    imageUrl: saleFields.shape.imageUrl.unwrap(),
    requireRealName: saleFields.shape.requireRealName.unwrap(),
    accountsCreatedBefore: saleFields.shape.accountsCreatedBefore.unwrap(),
    minMemberLevel: saleFields.shape.minMemberLevel.unwrap(),
    admissionRate: saleFields.shape.admissionRate.unwrap(),
    arrivalOrder: saleFields.shape.arrivalOrder.unwrap(),
    purchaseChallenge: saleFields.shape.purchaseChallenge.unwrap(),
  })
  .partial()
  .extend({ saleId: z.number().int().positive() })
  .superRefine(checkAcrossFields);
export type SaleEditInput = z.infer<typeof saleEditInput>;

export const stockAdjustmentInput = z.object({
  saleId: z.number().int().positive(),
  delta: z
    .number({ error: say({ en: "Enter how many units to add (negative to remove)", zh: "请填写要增加的件数（负数表示减少）" }) })
    .int(say({ en: "Whole units only", zh: "只能是整数件" }))
    .refine((d) => d !== 0, say({ en: "Enter a change other than 0", zh: "变化量不能为 0" }))
    .refine((d) => Math.abs(d) <= 10_000_000, say({ en: "At most 10,000,000 units at once", zh: "一次最多调整 10,000,000 件" })),
});
