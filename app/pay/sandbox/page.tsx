import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { AppError } from "@/server/errors";
import { callerOf } from "@/server/gateway/revocation";
import { sandboxEnabled } from "@/server/payments/providers";
import { sandboxCheckoutFor, type SandboxCheckout } from "@/server/payments/sandbox-gateway";
import { getServices } from "@/server/services";
import { money } from "../../_components/money";
import { requestMessages } from "../../_i18n/server";
import type { Messages } from "../../_i18n/messages";

/**
 * The sandbox provider's cashier: stands where Alipay's or WeChat Pay's payment page would. It
 * shows the merchant's signed request to the order's own shopper (anyone else: 404) and lets them
 * confirm (pretend money) or decline; a trade the merchant closed is shown as closed, with no
 * Confirm. Off unless PAYMENT_PROVIDERS offers the sandbox.
 */
export const metadata: Metadata = { title: "Sandbox Pay" };
export const dynamic = "force-dynamic";

type Shown = { kind: "checkout"; checkout: SandboxCheckout } | { kind: "notice"; text: string; signIn?: string };

export default async function SandboxCashier({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = Object.fromEntries(
    Object.entries(await searchParams).flatMap(([name, value]) => (typeof value === "string" ? [[name, value]] : [])),
  );
  const t = await requestMessages();
  const shown = await whatToShow(params, t);

  return (
    <section className="card cashier" aria-label={t.sandboxPay}>
      <div className="row">
        <h1>{t.sandboxPay}</h1>
        <span className="badge">{t.testMoneyOnly}</span>
      </div>
      {shown.kind === "notice" ? (
        <>
          <p className="status bad" role="alert">{shown.text}</p>
          {shown.signIn && (
            <a className="button" href={shown.signIn}>
              {t.signIn}
            </a>
          )}
        </>
      ) : (
        <Checkout checkout={shown.checkout} params={params} t={t} />
      )}
    </section>
  );
}

async function whatToShow(params: Record<string, string>, t: Messages): Promise<Shown> {
  const services = await getServices();
  if (!sandboxEnabled(services.env)) return { kind: "notice", text: t.paymentsNotSetUp };
  const { session } = await callerOf(services, await headers());
  if (!session) {
    const here = `/pay/sandbox?${new URLSearchParams(params)}`;
    return { kind: "notice", text: t.signInToPay, signIn: `/sign-in?next=${encodeURIComponent(here)}` };
  }
  try {
    return { kind: "checkout", checkout: await sandboxCheckoutFor(services, { params, userId: session.userId }) };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === "NOT_FOUND") notFound();
    const text = error.code === "PRECONDITION_FAILED" ? t.expired : error.code === "CONFLICT" ? t.paymentClosed : t.notGenuine;
    return { kind: "notice", text };
  }
}

function Checkout({ checkout, params, t }: { checkout: SandboxCheckout; params: Record<string, string>; t: Messages }) {
  const minutesLeft = Math.floor((checkout.expiresAt.getTime() - Date.now()) / 60_000);
  return (
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
  );
}
