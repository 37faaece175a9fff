/**
 * Sentences several modules answer with, said once so the shop says them the same way wherever
 * they come from (words in server/platform/sentences/).
 */
import type { Localized } from "./i18n";
import { sentence } from "./sentences/sentence";

/** Redis or a limiter could not answer: nothing happened, the person may simply try again. */
export const BUSY: Localized = sentence((s) => s.common.busy);

export function saleDoesNotExist(saleId: number): Localized {
  return sentence((s) => s.common.saleDoesNotExist(saleId));
}

/** Whole seconds, as the refusals that name a wait say it. */
export function tryAgainInSeconds(seconds: number): Localized {
  return sentence((s) => s.common.tryAgainInSeconds(seconds));
}
