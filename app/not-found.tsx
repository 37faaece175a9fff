import type { Metadata } from "next";
import Link from "next/link";
import { ACCOUNT_MESSAGES } from "./_i18n/account-messages";
import { requestLang, requestMessages } from "./_i18n/server";

export const metadata: Metadata = { title: "404 · Flash Sale" };

/** Any address the shop has no page for: the shop's own card, in the visitor's language, and the way home. */
export default async function NotFound() {
  const a = ACCOUNT_MESSAGES[await requestLang()];
  const t = await requestMessages();
  return (
    <section className="card narrow" aria-labelledby="not-found-title">
      <h1 id="not-found-title">{a.pageNotFoundTitle}</h1>
      <p className="muted">{a.pageNotFoundText}</p>
      <p>
        <Link href="/">{t.backToSales}</Link>
      </p>
    </section>
  );
}
