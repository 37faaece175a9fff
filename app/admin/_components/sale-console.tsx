"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type FormEvent } from "react";
import { keepSamples, type AdmittedSample } from "./chart-rows";
import type { RoomGauges } from "@/server/room/room-gauges";
import { useTRPC } from "@/app/_components/trpc";
import { money } from "@/app/_components/money";
import { SaleForm } from "./sale-form";
import { RateCharts } from "./rate-charts";
import { CrowdPanel } from "./crowd-panel";
import { useLang } from "@/app/_i18n/client";
import { DASHBOARD_MESSAGES } from "@/app/_i18n/dashboard-messages";

/** /admin/sales/<id>: the live dashboard, warm-up, the crowd, stock changes and the sale's terms. */
export function SaleConsole({ saleId }: { saleId: number }) {
  const trpc = useTRPC();
  const lang = useLang();
  const t = DASHBOARD_MESSAGES[lang];
  const queryClient = useQueryClient();
  const dashboard = useQuery({ ...trpc.admin.dashboard.queryOptions({ saleId }), refetchInterval: 1000 });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.admin.dashboard.queryKey({ saleId }) });
  const warmUp = useMutation(trpc.admin.warmUp.mutationOptions({ onSuccess: refresh }));
  const update = useMutation(trpc.admin.updateSale.mutationOptions({ onSuccess: refresh }));
  // The room's admitted count at each reading: its differences are the admitted-per-second chart.
  const [admitted, setAdmitted] = useState<AdmittedSample[]>([]);
  const room = dashboard.data?.room;
  useEffect(() => {
    if (room) setAdmitted((samples) => keepSamples(samples, { at: room.now, admitted: room.admitted }, 60));
  }, [room]);

  if (dashboard.isError) return <p className="status bad" role="alert">{dashboard.error.message}</p>;
  if (!dashboard.data) return <p className="muted">Loading…</p>;
  const { sale, ledger, ledgerState, problems, perSecond, queues } = dashboard.data;
  const ok = ledgerState !== "DRIFT";
  return (
    <div>
      <div className="row">
        <h1>
          Sale #{sale.id}: {sale.productName}
        </h1>
        <span className="badge">{sale.phase}</span>
      </div>
      <p className="muted">
        {money(sale.priceCents)} (was {money(sale.originalPriceCents)}) · {sale.unitLimit} unit(s) per shopper ·{" "}
        {sale.startsAt.toLocaleString()} – {sale.endsAt.toLocaleString()}
        {sale.requireRealName ? " · real-name only" : ""}
        {sale.minMemberLevel ? ` · member level ≥ ${sale.minMemberLevel}` : ""}
        {sale.admissionRate > 0 ? ` · ${t.roomPanel}: ${t.roomRateValue(sale.admissionRate)}` : ""}
      </p>

      <section className="card" aria-label="Warm-up">
        <div className="row">
          <h2>Warm-up</h2>
          <span className={`badge ${sale.warmedUp ? "ok" : "wait"}`} data-testid="warm-state">{sale.warmedUp ? "Loaded in Redis" : "Not loaded"}</span>
        </div>
        <p className="muted">Loads stock (from MySQL, minus reservations still on their way), window, unit limit and eligibility into Redis and resets every web instance&apos;s sold-out flag.</p>
        <button type="button" onClick={() => warmUp.mutate({ saleId })} disabled={warmUp.isPending}>
          {sale.warmedUp ? "Warm up again" : "Warm up"}
        </button>
        {warmUp.data ? (
          <p className="status ok" role="status" data-testid="warm-summary">
            Loaded {warmUp.data.stock} unit(s), {warmUp.data.pendingReservations} pending reservation(s) kept, {warmUp.data.shoppersHolding} shopper(s) holding
            units, {warmUp.data.unitLimit} unit(s) per shopper, {warmUp.data.eligibilityOverrides} eligibility override(s).
          </p>
        ) : null}
        {warmUp.error ? <p className="status bad" role="alert">{warmUp.error.message}</p> : null}
      </section>

      <section className="card" aria-label="Live numbers">
        <h2>Live numbers</h2>
        <dl className="stats">
          <div><dt>Redis stock</dt><dd data-testid="redis-stock">{ledger.redisStock ?? "—"}</dd></div>
          <div><dt>Pending reservations</dt><dd data-testid="pending">{ledger.pendingReservations}</dd></div>
          <div><dt>DB stock</dt><dd data-testid="db-stock">{ledger.dbStock}</dd></div>
          <div><dt>Total stock</dt><dd data-testid="total-stock">{ledger.totalStock}</dd></div>
          <div><dt>Orders</dt><dd data-testid="order-count">{Object.values(ledger.ordersByStatus).reduce((a, b) => a + b, 0)}</dd></div>
          {Object.entries(ledger.ordersByStatus).map(([status, n]) => (
            <div key={status}><dt>{status}</dt><dd data-testid={`orders-${status}`}>{n}</dd></div>
          ))}
        </dl>
        {ledger.buckets && ledger.buckets.length > 1 ? (
          <p data-testid="bucket-stocks">
            Redis stock by bucket: {ledger.buckets.map((b) => `#${b.bucket} ${b.redisStock ?? "—"}/${b.share}`).join(" · ")}
          </p>
        ) : null}
        <div className={`status ${ledgerState === "HOLDS" ? "ok" : ledgerState === "NOT_WARMED" ? "wait" : "bad"}`} data-testid="invariant" data-ok={ok} data-state={ledgerState} role={ok ? undefined : "alert"}>
          <p>
            <strong>{t.ledgerState[ledgerState]}</strong>
            {ledgerState === "NOT_WARMED" ? ` ${t.notWarmedHint}` : ""}
          </p>
          <p className="muted">{t.ledgerLine(ledger)}</p>
          {problems.length ? (
            <ul data-testid="invariant-problems">
              {problems.map((p) => (
                <li key={p.en}>{p[lang]}</li>
              ))}
            </ul>
          ) : null}
        </div>
        {sale.admissionRate > 0 ? <RoomPanel room={dashboard.data.room} /> : null}
        <RateCharts points={perSecond} admitted={sale.admissionRate > 0 ? admitted : undefined} />
        <h3>Queues</h3>
        <table className="table" aria-label="Queue depth">
          <thead><tr><th>Queue</th><th>Waiting</th><th>Active</th><th>Delayed</th><th>Failed</th><th>Completed</th></tr></thead>
          <tbody>
            {queues.map((q) => (
              <tr key={q.queue} data-testid={`queue-${q.queue}`}>
                <td>{q.queue}</td><td>{q.waiting}</td><td>{q.active}</td><td>{q.delayed}</td><td>{q.failed}</td><td>{q.completed}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <CrowdPanel saleId={saleId} />

      <StockAdjuster saleId={saleId} onDone={refresh} />

      <section className="card" aria-label="Edit sale">
        <h2>Terms</h2>
        <SaleForm
          initial={sale}
          withStock={false}
          submitLabel="Save changes"
          pending={update.isPending}
          errors={update.error?.data?.fieldErrors}
          message={update.error ? (update.error.data?.fieldErrors ? "Fix the fields marked above." : update.error.message) : null}
          onSubmit={(values) => update.mutate({ ...values, saleId })}
        />
        {update.isSuccess && sale.warmedUp ? <p className="status wait" role="status">Saved. Warm up again to apply the new terms to purchases.</p> : null}
      </section>
    </div>
  );
}

function StockAdjuster({ saleId, onDone }: { saleId: number; onDone: () => void }) {
  const trpc = useTRPC();
  const [delta, setDelta] = useState("");
  const adjust = useMutation(trpc.admin.adjustStock.mutationOptions({ onSuccess: onDone }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    adjust.mutate({ saleId, delta: Number(delta) });
  };
  const fieldError = (adjust.error?.data?.fieldErrors as Record<string, string[] | undefined> | null | undefined)?.delta?.join(" ");
  return (
    <section className="card" aria-label="Stock">
      <h2>Raise or lower stock</h2>
      <form className="actions" onSubmit={submit} noValidate>
        <label>
          Units to add (negative to remove)
          <input inputMode="numeric" value={delta} onChange={(e) => setDelta(e.target.value)} />
        </label>
        <button type="submit" disabled={adjust.isPending}>Apply</button>
      </form>
      {adjust.data ? (
        <p className="status ok" role="status" data-testid="stock-result">
          Total now {adjust.data.totalStock}; DB stock {adjust.data.dbStock}; Redis {adjust.data.redisStock ?? "not loaded"}.
        </p>
      ) : null}
      {adjust.error ? <p className="status bad" role="alert" data-testid="stock-error">{fieldError ?? adjust.error.message}</p> : null}
    </section>
  );
}

/** A room sale's line: who waits, who is admitted, how fast, and the longest wait. */
function RoomPanel({ room }: { room: RoomGauges | null }) {
  const t = DASHBOARD_MESSAGES[useLang()];
  if (!room) return <p className="status wait" data-testid="room-panel">{t.roomNotLoaded}</p>;
  const notes = [t.roomOrder[room.order], room.order === "RANDOM" ? (room.drawn === null ? t.roomNotDrawn : t.roomDrawn(room.drawn)) : null, room.challenge ? t.roomChallenge : null];
  return (
    <div data-testid="room-panel">
      <h3>{t.roomPanel}</h3>
      <dl className="stats">
        <div><dt>{t.roomWaiting}</dt><dd data-testid="room-waiting">{room.waiting.toLocaleString()}</dd></div>
        <div><dt>{t.roomAdmitted}</dt><dd data-testid="room-admitted">{room.admitted.toLocaleString()}</dd></div>
        <div><dt>{t.roomJoined}</dt><dd data-testid="room-joined">{room.joined.toLocaleString()}</dd></div>
        <div><dt>{t.roomRate}</dt><dd data-testid="room-rate">{t.roomRateValue(room.rate)}</dd></div>
        <div><dt>{t.roomOldestWait}</dt><dd data-testid="room-oldest-wait">{t.roomOldestWaitValue(room.oldestWaitSeconds)}</dd></div>
      </dl>
      <p className="muted">{notes.filter(Boolean).join(" · ")}</p>
    </div>
  );
}
