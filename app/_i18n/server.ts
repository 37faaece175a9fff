import { cookies, headers } from "next/headers";
import { langFromAcceptLanguage, langFromCookieValue, LANG_COOKIE, type Lang } from "@/server/platform/i18n";
import { MESSAGES, type Messages } from "./messages";

/** The visitor's language, for server components: the switch's cookie, else the browser's Accept-Language. */
export async function requestLang(): Promise<Lang> {
  const chosen = langFromCookieValue((await cookies()).get(LANG_COOKIE)?.value);
  return chosen ?? langFromAcceptLanguage((await headers()).get("accept-language"));
}

export async function requestMessages(): Promise<Messages> {
  return MESSAGES[await requestLang()];
}
