import { cookies } from "next/headers";
import { LANG_COOKIE, langFrom, MESSAGES, type Lang, type Messages } from "./messages";

/** The visitor's language, for server components. */
export async function requestLang(): Promise<Lang> {
  return langFrom((await cookies()).get(LANG_COOKIE)?.value);
}

export async function requestMessages(): Promise<Messages> {
  return MESSAGES[await requestLang()];
}
