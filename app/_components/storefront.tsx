"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent, type ReactNode } from "react";
import { useTRPC } from "./trpc";
import type { Refusal } from "@/server/seckill/outcome";
import { money } from "./money";

export function Storefront() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const sales = useQuery({ ...trpc.sale.list.queryOptions(), refetchInterval: 2000 });

  return (
    <div>
      <div className="row">
        <h1>Today&apos;s flash sales</h1>
        {me.data ? <SignOut /> : null}
      </div>
      {me.isPending ? <p className="muted">Loading…</p> : me.data ? null : <AuthForm />}
      {sales.isError ? <p className="status bad" role="alert">Could not load sales: {sales.error.message}</p> : null}
      {sales.isPending ? <p className="muted">Loading sales…</p> : null}
      {sales.data?.length === 0 ? <p className="muted">No sales right now. Check back soon.</p> : null}
      <div className="grid">
        {sales.data?.map((sale) => (
          <article key={sale.id} className="card" data-testid={`sale-${sale.id}`}>
            <div className="row">
              <h2>{sale.productName}</h2>
              <span className={`badge ${sale.phase === "LIVE" ? "live" : ""}`}>{sale.phase}</span>
            </div>
            <p className="muted">{sale.description}</p>
            <p className="price">
              {money(sale.priceCents)}
              <s>{money(sale.originalPriceCents)}</s>
            </p>
            <p className="muted" data-testid="stock-left">
              {sale.stockLeft === null ? "Opening soon" : `${sale.stockLeft} of ${sale.totalStock} left`} · limit{" "}
              {sale.perUserLimit} per shopper
            </p>
            <BuyButton saleId={sale.id} enabled={Boolean(me.data) && sale.phase === "LIVE"} />
          </article>
        ))}
      </div>
    </div>
  );
}

const REFUSAL_TEXT: Record<Refusal, string> = {
  SOLD_OUT: "Sold out — every unit has been reserved.",
  ALREADY_PURCHASED: "You already bought this item (limit reached).",
  NOT_STARTED: "The sale has not started yet.",
  ENDED: "The sale has ended.",
  BLACKLISTED: "This account cannot take part in flash sales. Contact support if you think this is wrong.",
  REAL_NAME_REQUIRED: "This sale is for real-name verified accounts. Verify your identity to take part.",
  MEMBER_LEVEL_TOO_LOW: "This sale is for members of a higher level.",
  INVALID_TOKEN: "Your purchase link expired. Press Buy again.",
};

function BuyButton({ saleId, enabled }: { saleId: number; enabled: boolean }) {
  const trpc = useTRPC();
  const token = useMutation(trpc.seckill.token.mutationOptions());
  const purchase = useMutation(trpc.seckill.purchase.mutationOptions());
  // One press: fetch the single-use purchase token, then purchase with it.
  const buy = useMutation({
    mutationFn: async () => {
      const issued = await token.mutateAsync({ saleId });
      if (issued.status !== "ISSUED") return issued;
      return purchase.mutateAsync({ saleId, token: issued.token });
    },
  });
  const reservationId = buy.data?.status === "QUEUED" ? buy.data.reservationId : null;
  const result = useQuery({
    ...trpc.seckill.result.queryOptions({ reservationId: reservationId ?? "" }),
    enabled: reservationId !== null,
    // Poll with backoff while the order is in the queue: 300 ms, doubling, at most 3 s.
    refetchInterval: (query) =>
      query.state.data?.status === "QUEUED" || !query.state.data
        ? Math.min(3000, 300 * 2 ** query.state.dataUpdateCount)
        : false,
  });

  let status: { tone: string; text: ReactNode } | null = null;
  if (buy.isError) status = { tone: "bad", text: buy.error.message };
  else if (buy.data && buy.data.status !== "QUEUED") status = { tone: "bad", text: REFUSAL_TEXT[buy.data.status] };
  else if (result.data?.status === "ORDER_CREATED") {
    status = { tone: "ok", text: <>Order #{result.data.orderId} created — pay for it in <a href="/orders">My orders</a>.</> };
  } else if (result.data?.status === "FAILED") status = { tone: "bad", text: "Sorry, your reservation could not be turned into an order." };
  else if (reservationId) status = { tone: "wait", text: "You are in the queue… creating your order." };

  return (
    <div>
      <button
        type="button"
        disabled={!enabled || buy.isPending || reservationId !== null}
        onClick={() => buy.mutate()}
      >
        {buy.isPending ? "Buying…" : "Buy now"}
      </button>
      {status ? (
        <p className={`status ${status.tone}`} role="status" data-testid="purchase-status">
          {status.text}
        </p>
      ) : null}
    </div>
  );
}

function AuthForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<"signIn" | "signUp">("signUp");
  const onSuccess = () => queryClient.invalidateQueries(trpc.auth.me.queryFilter());
  const signUp = useMutation(trpc.auth.signUp.mutationOptions({ onSuccess }));
  const signIn = useMutation(trpc.auth.signIn.mutationOptions({ onSuccess }));
  const active = mode === "signUp" ? signUp : signIn;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    active.mutate({ email: String(form.get("email")), password: String(form.get("password")) });
  };

  return (
    <section className="card" aria-label="Account">
      <h2>{mode === "signUp" ? "Create an account to buy" : "Sign in to buy"}</h2>
      <form className="stack" onSubmit={submit}>
        <label>
          Email
          <input name="email" type="email" autoComplete="email" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete={mode === "signUp" ? "new-password" : "current-password"} minLength={8} required />
        </label>
        {active.isError ? <p className="status bad" role="alert">{active.error.message}</p> : null}
        <button type="submit" disabled={active.isPending}>{mode === "signUp" ? "Sign up" : "Sign in"}</button>
        <button type="button" className="secondary" onClick={() => setMode(mode === "signUp" ? "signIn" : "signUp")}>
          {mode === "signUp" ? "I already have an account" : "Create a new account"}
        </button>
      </form>
    </section>
  );
}

function SignOut() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const signOut = useMutation(trpc.auth.signOut.mutationOptions({ onSuccess: () => queryClient.invalidateQueries(trpc.auth.me.queryFilter()) }));
  return (
    <button type="button" className="secondary" onClick={() => signOut.mutate()}>
      Sign out
    </button>
  );
}
