import type { Lang } from "@/server/platform/i18n";
import { en, type AccountMessages } from "./en/account";
import { zh } from "./zh/account";

/** The account journeys' words in each language: a translator edits en/account.ts and zh/account.ts. */
export const ACCOUNT_MESSAGES: Record<Lang, AccountMessages> = { en, zh };
export type { AccountMessages } from "./en/account";
