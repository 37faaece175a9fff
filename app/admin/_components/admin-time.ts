import type { Lang } from "@/server/platform/i18n";

/** A moment in the operator's own zone, to the second, with the zone named (times decide a flash sale). */
export function adminTime(date: Date | null | undefined, lang: Lang): string {
  if (!date) return "—";
  return date.toLocaleString(lang === "zh" ? "zh-CN" : "en-GB", {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    timeZoneName: "short",
  });
}
