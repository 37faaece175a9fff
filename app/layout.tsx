import type { Metadata, Viewport } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { Providers } from "./_components/providers";
import { AccountNav } from "./_components/account-nav";
import { LanguageSwitch } from "./_i18n/client";
import { MESSAGES } from "./_i18n/messages";
import { requestLang } from "./_i18n/server";
import "./globals.css";

export const metadata: Metadata = {
  title: "Flash Sale",
  description: MESSAGES.en.tagline,
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default async function RootLayout({ children }: { children: ReactNode }) {
  const lang = await requestLang();
  const t = MESSAGES[lang];
  return (
    <html lang={lang === "zh" ? "zh-CN" : "en"}>
      <body>
        <Providers lang={lang}>
          <a className="skip-link" href="#main">
            {t.skipToContent}
          </a>
          <header className="topbar">
            <Link href="/" className="brand" aria-label={t.brand}>
              <span aria-hidden="true">⚡</span> <span className="brand-name">{t.brand}</span>
            </Link>
            <nav aria-label={t.accountNav}>
              <AccountNav />
              <LanguageSwitch />
            </nav>
          </header>
          <main id="main" className="page">
            {children}
          </main>
        </Providers>
      </body>
    </html>
  );
}
