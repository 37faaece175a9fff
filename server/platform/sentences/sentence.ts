import type { Lang, Localized } from "../i18n";
import { en, type Sentences } from "./en";
import { zh } from "./zh";

/** Every language's catalog of the server's own sentences (one file per language beside this one). */
export const SENTENCES: Readonly<Record<Lang, Sentences>> = { en, zh };

/**
 * One sentence in every language, picked the same way from each catalog:
 * `sentence((s) => s.refunds.refunded(orderId))`. A part said in the reader's language is picked
 * inside, from the same `s`: `sentence((s) => s.orders.cannotCancel(orderId, s.orders.status[status]))`.
 */
export function sentence(pick: (s: Sentences) => string): Localized {
  return { en: pick(en), zh: pick(zh) };
}
