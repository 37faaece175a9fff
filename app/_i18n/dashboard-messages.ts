import type { Lang } from "@/server/platform/i18n";
import { en, type DashboardMessages } from "./en/dashboard";
import { zh } from "./zh/dashboard";

/** The sale dashboard's words in each language: a translator edits en/dashboard.ts and zh/dashboard.ts. */
export const DASHBOARD_MESSAGES: Record<Lang, DashboardMessages> = { en, zh };
