/**
 * Zod's reasons for bad input in the caller's language, per request: zod's global `z.config`
 * would switch every request's language at once, so each issue is translated here instead. Our
 * schemas' own sentences come from INPUT_SENTENCES; zod's defaults from its zh-CN locale; a
 * sentence neither knows (another module's custom one) stays as written.
 */
import { z, type ZodError } from "zod";
import type { Lang, Localized } from "../platform/i18n";
import { PASSWORD_TOO_LONG } from "../gateway/password";
import { PAYMENT_PROVIDER_NAMES } from "../platform/env";
import { MAX_BLACKLIST_BATCH } from "../admin/crowd-report";

/** The custom messages of server/trpc/schemas.ts, in both languages. */
export const INPUT_SENTENCES = {
  saleId: { en: "saleId must be a number", zh: "saleId 必须是数字" },
  token: {
    en: "token is required: get one from seckill.token once the sale starts (in a sale with a waiting room, send the ticket from room.join instead)",
    zh: "缺少 token：请在秒杀开始后从 seckill.token 获取（设有排队室的秒杀请改为发送 room.join 给出的排队凭证 ticket）",
  },
  tokenMalformed: { en: "token is malformed", zh: "token 格式不正确" },
  ticketMalformed: {
    en: "ticket is malformed: send the ticket room.join gave",
    zh: "排队凭证 ticket 格式不正确：请发送 room.join 给出的凭证",
  },
  solutionMalformed: { en: "solution is malformed", zh: "人机验证 solution 格式不正确" },
  again: { en: "again must be true or false", zh: "again 只能是 true 或 false" },
  reservationIdMalformed: { en: "reservationId is malformed", zh: "reservationId 格式不正确" },
  orderId: { en: "orderId must be a number", zh: "orderId 必须是数字" },
  provider: {
    en: `provider must be one of ${PAYMENT_PROVIDER_NAMES.join(", ")}`,
    zh: `provider 只能是 ${PAYMENT_PROVIDER_NAMES.join("、")} 之一`,
  },
  device: { en: "device must be desktop or phone", zh: "device 只能是 desktop 或 phone" },
  email: { en: "Enter a valid email address", zh: "请输入有效的邮箱地址" },
  passwordTooShort: { en: "Use at least 8 characters", zh: "密码至少需要 8 个字符" },
  passwordTooLong: PASSWORD_TOO_LONG,
  userIds: { en: "userIds must be a list of account numbers", zh: "userIds 必须是账号编号的列表" },
  userIdsEmpty: { en: "Choose at least one account", zh: "请至少选择一个账号" },
  userIdsTooMany: { en: `At most ${MAX_BLACKLIST_BATCH} accounts at once`, zh: `一次最多 ${MAX_BLACKLIST_BATCH} 个账号` },
  verificationToken: { en: "token is malformed: open the whole link from the email", zh: "token 格式不正确：请打开邮件中的完整链接" },
} satisfies Record<string, Localized>;

const CHINESE_BY_ENGLISH = new Map<string, string>(Object.values(INPUT_SENTENCES).map((sentence) => [sentence.en, sentence.zh]));

// Built on first use: only a Chinese caller's bad input needs them.
let locales: { en: (issue: z.core.$ZodRawIssue) => string | undefined; zh: (issue: z.core.$ZodRawIssue) => string | undefined } | undefined;

function issueInChinese(issue: z.core.$ZodIssue): string {
  const ours = CHINESE_BY_ENGLISH.get(issue.message);
  if (ours !== undefined) return ours;
  locales ??= { en: messageOf(z.locales.en().localeError), zh: messageOf(z.locales.zhCN().localeError) };
  const raw = issue as unknown as z.core.$ZodRawIssue;
  // Only zod's own default is replaced: a custom sentence we have no translation for is kept.
  return locales.en(raw) === issue.message ? (locales.zh(raw) ?? issue.message) : issue.message;
}

function messageOf(localeError: z.core.$ZodErrorMap): (issue: z.core.$ZodRawIssue) => string | undefined {
  return (issue) => {
    const answer = localeError(issue);
    return typeof answer === "string" ? answer : answer?.message;
  };
}

/** The error with each issue's message in `lang` (English: the error itself). */
export function localizedInputError(error: ZodError, lang: Lang): ZodError {
  if (lang === "en") return error;
  return new z.ZodError(error.issues.map((issue) => ({ ...issue, message: issueInChinese(issue) })));
}
