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
import { sentence } from "../platform/sentences/sentence";

/** The custom messages of server/trpc/schemas.ts, in both languages. */
export const INPUT_SENTENCES = {
  saleId: sentence((s) => s.input.saleId),
  token: sentence((s) => s.input.token),
  tokenMalformed: sentence((s) => s.input.tokenMalformed),
  ticketMalformed: sentence((s) => s.input.ticketMalformed),
  solutionMalformed: sentence((s) => s.input.solutionMalformed),
  again: sentence((s) => s.input.again),
  reservationIdMalformed: sentence((s) => s.input.reservationIdMalformed),
  orderId: sentence((s) => s.input.orderId),
  provider: sentence((s) => s.input.provider(PAYMENT_PROVIDER_NAMES.join(s.input.providersBetween))),
  device: sentence((s) => s.input.device),
  email: sentence((s) => s.input.email),
  passwordTooShort: sentence((s) => s.input.passwordTooShort),
  passwordTooLong: PASSWORD_TOO_LONG,
  userIds: sentence((s) => s.input.userIds),
  userIdsEmpty: sentence((s) => s.input.userIdsEmpty),
  userIdsTooMany: sentence((s) => s.input.userIdsTooMany(MAX_BLACKLIST_BATCH)),
  verificationToken: sentence((s) => s.input.verificationToken),
  standingChange: sentence((s) => s.input.standingChange),
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
