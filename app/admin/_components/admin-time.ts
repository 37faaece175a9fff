import type { Lang } from "@/server/platform/i18n";

/**
 * A moment in the operator's own zone, to the second, with the zone named (times decide a flash
 * sale): "05/12/2026, 07:54:03 GMT+8" in English, "12月5日 07:54:03 GMT+8" in Chinese (the year
 * only when it is not this one), as each reader writes a date.
 */
export function adminTime(date: Date | null | undefined, lang: Lang, timeZone?: string): string {
  if (!date) return "—";
  const clock = { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23", timeZoneName: "short", timeZone } as const;
  if (lang === "en") return date.toLocaleString("en-GB", { year: "numeric", month: "2-digit", day: "2-digit", ...clock });
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("zh-CN", { year: "numeric", month: "numeric", day: "numeric", ...clock })
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
  const thisYear = new Intl.DateTimeFormat("zh-CN", { year: "numeric", timeZone }).format(new Date()).replace(/\D/g, "");
  const year = parts.year === thisYear ? "" : `${parts.year}年`;
  return `${year}${parts.month}月${parts.day}日 ${parts.hour}:${parts.minute}:${parts.second} ${parts.timeZoneName}`;
}
