import type { Lang } from "@/server/platform/i18n";
import { en, type AdminMessages } from "./en/admin";
import { zh } from "./zh/admin";

/** The console's words in each language (only console code imports this, so the shop's bundle stays without them). */
export const ADMIN_MESSAGES: Record<Lang, AdminMessages> = { en, zh };
export type { AdminMessages } from "./en/admin";
