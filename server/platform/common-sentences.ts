/**
 * Sentences several modules answer with, written once so the shop says them the same way
 * wherever they come from (server/platform/i18n.ts: each in English and Chinese).
 */
import type { Localized } from "./i18n";

/** Redis or a limiter could not answer: nothing happened, the person may simply try again. */
export const BUSY: Localized = {
  en: "We are very busy right now. Please try again in a moment.",
  zh: "当前访问人数过多，请稍后重试。",
};

export function saleDoesNotExist(saleId: number): Localized {
  return { en: `Sale ${saleId} does not exist.`, zh: `找不到这场秒杀（编号 ${saleId}）。` };
}

/** Whole seconds, as the refusals that name a wait say it. */
export function tryAgainInSeconds(seconds: number): Localized {
  return { en: `Try again in ${seconds} s.`, zh: `请 ${seconds} 秒后再试。` };
}
