import type { Lang } from "@/server/platform/i18n";
import { en, type Messages } from "./en/shop";
import { zh } from "./zh/shop";

/** The shop's words in each language: a translator edits en/shop.ts and zh/shop.ts. */
export const MESSAGES: Record<Lang, Messages> = { en, zh };

export { PAY_ERROR_CODES, type Messages, type PayErrorCode, type RoomRefusal } from "./en/shop";
export type { Lang } from "@/server/platform/i18n";
export { LANG_COOKIE } from "@/server/platform/i18n";
