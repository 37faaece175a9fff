import Link from "next/link";
import { requestMessages } from "../../_i18n/server";

/** A sale id that names no sale (or a withdrawn one): say so in the shop's words, and the way back. */
export default async function SaleNotFound() {
  const t = await requestMessages();
  return (
    <section className="card narrow" aria-labelledby="not-found-title">
      <h1 id="not-found-title">{t.saleNotFound}</h1>
      <p>
        <Link href="/">{t.backToSales}</Link>
      </p>
    </section>
  );
}
