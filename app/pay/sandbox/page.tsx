import type { Metadata } from "next";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { AppError } from "@/server/platform/errors";
import { callerOf } from "@/server/gateway/revocation";
import { sandboxEnabled, sandboxTrades } from "@/server/payments/providers";
import { readSandboxCheckout, sandboxCheckoutFor, type SandboxCheckout } from "@/server/payments/sandbox-gateway";
import { getServices } from "@/server/composition";
import type { Services } from "@/server/platform/services";
import { money } from "../../_components/money";
import { ACCOUNT_MESSAGES } from "../../_i18n/account-messages";
import { requestLang } from "../../_i18n/server";
import { MESSAGES, type Messages } from "../../_i18n/messages";
import { declinedReturnUrl } from "./declined-return";
import { ReloadWhenRestored } from "./reload-when-restored";

/**
 * The sandbox provider's cashier: stands where Alipay's or WeChat Pay's payment page would. It
 * shows the merchant's signed request to the order's own shopper (anyone else: 404) and lets them
 * confirm (pretend money) or decline; a trade the merchant closed is shown as closed, and one
 * already paid (the buyer pressed Back after paying) as paid, neither with a Confirm. Off unless
 * PAYMENT_PROVIDERS offers the sandbox.
 */
export const metadata: Metadata = { title: "Sandbox Pay" };
export const dynamic = "force-dynamic";

type Shown =
  | { kind: "checkout"; checkout: SandboxCheckout }
  | { kind: "paid"; back: string }
  | { kind: "notice"; text: string; signIn?: string; back?: string };

export default async function SandboxCashier({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = Object.fromEntries(
    Object.entries(await searchParams).flatMap(([name, value]) => (typeof value === "string" ? [[name, value]] : [])),
  );
  const lang = await requestLang();
  const t = MESSAGES[lang];
  const a = ACCOUNT_MESSAGES[lang];
  const shown = await whatToShow(params, t);

  return (
    <section className="card cashier" aria-label={t.sandboxPay}>
      <div className="row">
        <h1>{t.sandboxPay}</h1>
        <span className="badge">{t.testMoneyOnly}</span>
      </div>
      <ReloadWhenRestored />
      {shown.kind === "notice" ? (
        <>
          <p className="status bad" role="alert">
            {shown.text}
          </p>
          {shown.signIn && (
            <a className="button" href={shown.signIn}>
              {t.signIn}
            </a>
          )}
          {shown.back && (
            <a className="button secondary" href={shown.back}>
              {a.tradeClosedSeeOrders}
            </a>
          )}
        </>
      ) : shown.kind === "paid" ? (
        <>
          <p className="status ok" role="status">
            {a.alreadyPaidNote}
          </p>
          <a className="button" href={shown.back} data-testid="cashier-paid">
            {a.alreadyPaid}
          </a>
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
    const checkout = await sandboxCheckoutFor(services, { params, userId: session.userId });
    if (await tradePaid(services, checkout.outTradeNo)) return { kind: "paid", back: checkout.returnUrl };
    return { kind: "checkout", checkout };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === "NOT_FOUND") notFound();
    // The request is genuine and the shopper's own past this point, unless it was BAD_REQUEST.
    const genuine = error.code === "BAD_REQUEST" ? null : readSandboxCheckout(services.env, params);
    // Back after paying once the request's time ran out: still paid, not "expired".
    if (genuine && error.code === "PRECONDITION_FAILED" && (await tradePaid(services, genuine.outTradeNo)))
      return { kind: "paid", back: genuine.returnUrl };
    const text = error.code === "PRECONDITION_FAILED" ? t.expired : error.code === "CONFLICT" ? t.paymentClosed : t.notGenuine;
    return { kind: "notice", text, back: genuine?.returnUrl };
  }
}

/** The sandbox's own books say this trade took the money (Confirm was pressed before). */
async function tradePaid(services: Services, outTradeNo: string): Promise<boolean> {
  return (await sandboxTrades(services).state(outTradeNo)).state === "PAID";
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
        <a className="button secondary" href={declinedReturnUrl(checkout.returnUrl)}>
          {t.decline}
        </a>
      </form>
    </>
  );
}
