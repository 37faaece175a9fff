"use client";
import { useRouter } from "next/navigation";
import { createContext, useContext, type ReactNode } from "react";
import { LANG_COOKIE, MESSAGES, type Lang, type Messages } from "./messages";

const LangContext = createContext<Lang>("en");

/** The language the server rendered with (from the cookie), handed to client components. */
export function LangProvider({ lang, children }: { lang: Lang; children: ReactNode }) {
  return <LangContext.Provider value={lang}>{children}</LangContext.Provider>;
}

/** The page's language, for a component with its own messages (`const t = ADMIN_MESSAGES[useLang()]`). */
export function useLang(): Lang {
  return useContext(LangContext);
}

export function useMessages(): Messages {
  return MESSAGES[useContext(LangContext)];
}

/** Switches between English and Chinese: a cookie for the server, then a re-render from it. */
export function LanguageSwitch() {
  const lang = useContext(LangContext);
  const t = useMessages();
  const router = useRouter();
  const next: Lang = lang === "en" ? "zh" : "en";
  return (
    <button
      type="button"
      className="secondary small"
      lang={next === "zh" ? "zh-CN" : "en"}
      aria-label={t.switchLanguageLabel}
      onClick={() => {
        document.cookie = `${LANG_COOKIE}=${next}; path=/; max-age=31536000; samesite=lax`;
        router.refresh();
      }}
    >
      {t.switchLanguage}
    </button>
  );
}
