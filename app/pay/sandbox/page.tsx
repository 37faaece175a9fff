import type { Metadata } from "next";
import { env } from "@/server/env";
import { readSandboxCheckout } from "@/server/payments/sandbox-gateway";
import { money } from "../../_components/money";
import { requestMessages } from "../../_i18n/server";

/**
 * The sandbox provider's cashier: stands where Alipay's or WeChat Pay's payment page would. It
 * shows the merchant's signed request and lets the buyer confirm (pretend money) or decline.
 */
export const metadata: Metadata = { title: "Sandbox Pay" };
export const dynamic = "force-dynamic";

export default async function SandboxCashier({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = Object.fromEntries(
    Object.entries(await searchParams).flatMap(([name, value]) => (typeof value === "string" ? [[name, value]] : [])),
  );
  const t = await requestMessages();
  const checkout = readSandboxCheckout(env(), params);
  const minutesLeft = checkout ? Math.floor((checkout.expiresAt.getTime() - Date.now()) / 60_000) : 0;

  return (
    <section className="card cashier" aria-label={t.sandboxPay}>
      <div className="row">
        <h1>{t.sandboxPay}</h1>
        <span className="badge">{t.testMoneyOnly}</span>
      </div>
      {!checkout ? (
        <p className="status bad" role="alert">{t.notGenuine}</p>
      ) : checkout.expiresAt.getTime() <= Date.now() ? (
        <p className="status bad" role="alert">{t.expired}</p>
      ) : (
        <>
          <p>{checkout.subject}</p>
          <p className="price" data-testid="cashier-amount">
            {money(checkout.amountCents)}
          </p>
          <p className="muted">
            {t.merchantTradeNo(checkout.outTradeNo)} · {t.expiresInMinutes(minutesLeft)}
          </p>
          <form method="post" action="/pay/sandbox/confirm" className="actions">
            {Object.entries(params).map(([name, value]) => (
              <input key={name} type="hidden" name={name} value={value} />
            ))}
            <button type="submit">{t.confirmPayment}</button>
            <a className="button secondary" href={checkout.returnUrl}>
              {t.decline}
            </a>
          </form>
        </>
      )}
    </section>
  );
}
