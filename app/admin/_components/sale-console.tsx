"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { Alert, Button, Card, Col, Form, Input, Row, Statistic, Table, Tag, type TableColumnsType } from "antd";
import { keepSamples, type AdmittedSample } from "./chart-rows";
import type { RoomGauges } from "@/server/room/room-gauges";
import type { QueueDepth } from "@/server/admin/dashboard";
import { useTRPC } from "@/app/_components/trpc";
import { money } from "@/app/_components/money";
import { useNow } from "@/app/_components/use-now";
import { SaleForm } from "./sale-form";
import { RateCharts } from "./rate-charts";
import { CrowdPanel } from "./crowd-panel";
import { adminTime } from "./admin-time";
import { failureKind, liveReadingState } from "./live-reading";
import { ORDER_STATUS_COLOR, TAG } from "./status-colors";
import { rowTestId } from "./table-layout";
import { useLang } from "@/app/_i18n/client";
import { DASHBOARD_MESSAGES } from "@/app/_i18n/dashboard-messages";
import { ADMIN_MESSAGES } from "@/app/_i18n/admin-messages";
import styles from "../admin.module.css";

/** A number as the dashboard shows it, the test id on the figure itself. */
function Figure({ title, value, testId }: { title: string; value: number | string | null; testId: string }) {
  return <Statistic title={title} value={value ?? "—"} formatter={(v) => <span data-testid={testId}>{String(v)}</span>} />;
}

/** /admin/sales/<id>: the live dashboard, warm-up, the crowd, stock changes and the sale's terms. */
export function SaleConsole({ saleId }: { saleId: number }) {
  const trpc = useTRPC();
  const lang = useLang();
  const t = DASHBOARD_MESSAGES[lang];
  const m = ADMIN_MESSAGES[lang];
  const queryClient = useQueryClient();
  // The poll is its own retry: a refused reading is tried again at the next second, and the
  // last good one stays on screen meanwhile (react-query keeps `data` through an error).
  const dashboard = useQuery({
    ...trpc.admin.dashboard.queryOptions({ saleId }),
    refetchInterval: 1000,
    refetchIntervalInBackground: true,
    retry: false,
  });
  const now = useNow();
  const reading = liveReadingState(dashboard.dataUpdatedAt, dashboard.isError ? dashboard.errorUpdatedAt : 0, now);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.admin.dashboard.queryKey({ saleId }) });
  const warmUp = useMutation(trpc.admin.warmUp.mutationOptions({ onSuccess: refresh }));
  const update = useMutation(trpc.admin.updateSale.mutationOptions({ onSuccess: refresh }));
  // The room's admitted count at each reading: its differences are the admitted-per-second chart.
  const [admitted, setAdmitted] = useState<AdmittedSample[]>([]);
  const room = dashboard.data?.room;
  useEffect(() => {
    if (room) setAdmitted((samples) => keepSamples(samples, { at: room.now, admitted: room.admitted }, 60));
  }, [room]);

  if (!dashboard.data) {
    return dashboard.isError ? (
      <Alert type="error" role="alert" data-testid="dashboard-unread" title={t.firstReadFailed(t.staleWhy[failureKind(dashboard.error)])} />
    ) : (
      <p className="muted">{t.loading}</p>
    );
  }
  const { sale, ledger, ledgerState, problems, perSecond, queues } = dashboard.data;
  const ok = ledgerState !== "DRIFT";
  const orderCount = Object.values(ledger.ordersByStatus).reduce((a, b) => a + b, 0);
  const terms = [
    `${money(sale.priceCents)} (${t.was(money(sale.originalPriceCents))})`,
    t.unitsPerShopper(sale.unitLimit),
    `${adminTime(sale.startsAt, lang)} – ${adminTime(sale.endsAt, lang)}`,
    sale.requireRealName ? t.realNameOnly : null,
    sale.minMemberLevel ? t.memberLevelAtLeast(sale.minMemberLevel) : null,
    sale.admissionRate > 0 ? `${t.roomPanel}: ${t.roomRateValue(sale.admissionRate)}` : null,
  ];
  return (
    <div>
      <div className="row">
        <h1>{t.title(sale.id, sale.productName)}</h1>
        <Tag color={sale.phase === "LIVE" ? TAG.red : sale.phase === "UPCOMING" ? TAG.gold : TAG.grey}>
          {t.phase[sale.phase] ?? sale.phase}
        </Tag>
      </div>
      <p className="muted">{terms.filter(Boolean).join(" · ")}</p>

      <Card
        className={styles.section}
        role="region"
        aria-label={t.warmUpSection}
        title={<h2 className={styles.cardTitle}>{t.warmUpSection}</h2>}
        extra={
          <Tag color={sale.warmedUp ? TAG.green : TAG.orange} data-testid="warm-state">
            {sale.warmedUp ? t.warmedUp : t.notWarmedUp}
          </Tag>
        }
      >
        <p className="muted">{t.warmUpHelp}</p>
        <Button type="primary" onClick={() => warmUp.mutate({ saleId })} loading={warmUp.isPending}>
          {sale.warmedUp ? t.warmUpAgain : t.warmUp}
        </Button>
        {warmUp.data ? (
          <p className="status ok" role="status" data-testid="warm-summary">
            {t.warmSummary(warmUp.data)}
          </p>
        ) : null}
        {warmUp.error ? (
          <p className="status bad" role="alert">
            {warmUp.error.message}
          </p>
        ) : null}
      </Card>

      <Card
        className={styles.section}
        role="region"
        aria-label={t.liveSection}
        title={<h2 className={styles.cardTitle}>{t.liveSection}</h2>}
        extra={
          <span className="muted" data-testid="reading-age" data-stale={reading.stale}>
            {t.readAgo(reading.ageSeconds)}
          </span>
        }
      >
        {reading.stale ? (
          <Alert
            className={styles.staleNote}
            type="warning"
            showIcon
            role="status"
            data-testid="dashboard-stale"
            title={t.stale(reading.ageSeconds, t.staleWhy[failureKind(dashboard.error)])}
          />
        ) : null}
        <div className={reading.stale ? styles.stale : undefined} data-testid="live-numbers">
          <Row gutter={[16, 16]}>
            <Col xs={12} sm={8} lg={4}>
              <Figure title={t.redisStock} value={ledger.redisStock} testId="redis-stock" />
            </Col>
            <Col xs={12} sm={8} lg={4}>
              <Figure title={t.pending} value={ledger.pendingReservations} testId="pending" />
            </Col>
            <Col xs={12} sm={8} lg={4}>
              <Figure title={t.dbStock} value={ledger.dbStock} testId="db-stock" />
            </Col>
            <Col xs={12} sm={8} lg={4}>
              <Figure title={t.totalStock} value={ledger.totalStock} testId="total-stock" />
            </Col>
            <Col xs={12} sm={8} lg={4}>
              <Figure title={t.orders} value={orderCount} testId="order-count" />
            </Col>
          </Row>
          <div className={styles.statusCounts}>
            {Object.entries(ledger.ordersByStatus).map(([status, n]) => (
              <Tag key={status} color={ORDER_STATUS_COLOR[status]}>
                {m.orderStatus[status] ?? status}: <span data-testid={`orders-${status}`}>{n}</span>
              </Tag>
            ))}
          </div>
          {ledger.buckets && ledger.buckets.length > 1 ? (
            <p data-testid="bucket-stocks">
              {t.bucketStocks(ledger.buckets.map((b) => `#${b.bucket} ${b.redisStock ?? "—"}/${b.share}`).join(" · "))}
            </p>
          ) : null}
          <div
            className={`status ${ledgerState === "HOLDS" ? "ok" : ledgerState === "NOT_WARMED" ? "wait" : "bad"}`}
            data-testid="invariant"
            data-ok={ok}
            data-state={ledgerState}
            role={ok ? undefined : "alert"}
          >
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
          <h3>{t.queuesSection}</h3>
          <QueueTable queues={queues} />
        </div>
      </Card>

      <CrowdPanel saleId={saleId} />

      <StockAdjuster saleId={saleId} onDone={refresh} />

      <Card
        className={styles.section}
        role="region"
        aria-label={t.editSection}
        title={<h2 className={styles.cardTitle}>{t.termsTitle}</h2>}
      >
        <SaleForm
          initial={sale}
          withStock={false}
          submitLabel={t.save}
          pending={update.isPending}
          errors={update.error?.data?.fieldErrors}
          message={update.error ? (update.error.data?.fieldErrors ? t.fixFields : update.error.message) : null}
          onSubmit={(values) => update.mutate({ ...values, saleId })}
        />
        {update.isSuccess && sale.warmedUp ? (
          <p className="status wait" role="status">
            {t.savedWarmAgain}
          </p>
        ) : null}
      </Card>
    </div>
  );
}

function QueueTable({ queues }: { queues: QueueDepth[] }) {
  const t = DASHBOARD_MESSAGES[useLang()];
  const columns: TableColumnsType<QueueDepth> = [
    { title: t.queue, dataIndex: "queue", render: (queue: string) => t.queueNames[queue as keyof typeof t.queueNames] ?? queue },
    { title: t.waiting, dataIndex: "waiting" },
    { title: t.active, dataIndex: "active" },
    { title: t.delayed, dataIndex: "delayed" },
    { title: t.failed, dataIndex: "failed" },
    { title: t.completed, dataIndex: "completed" },
  ];
  // Scrolls sideways in a box a keyboard can focus: the table itself has nothing focusable, and an
  // unfocusable scroll region cannot be scrolled without a mouse (axe: scrollable-region-focusable).
  return (
    <div data-testid="queue-table" className={styles.scrollBox} tabIndex={0} role="region" aria-label={t.queueTable}>
      <Table<QueueDepth>
        rowKey="queue"
        size="small"
        columns={columns}
        dataSource={queues}
        pagination={false}
        onRow={(q) => rowTestId(`queue-${q.queue}`)}
      />
    </div>
  );
}

function StockAdjuster({ saleId, onDone }: { saleId: number; onDone: () => void }) {
  const trpc = useTRPC();
  const t = DASHBOARD_MESSAGES[useLang()];
  const inputId = useId();
  const [delta, setDelta] = useState("");
  const adjust = useMutation(trpc.admin.adjustStock.mutationOptions({ onSuccess: onDone }));
  const fieldError = (adjust.error?.data?.fieldErrors as Record<string, string[] | undefined> | null | undefined)?.delta?.[0];
  return (
    <Card className={styles.section} role="region" aria-label={t.stockSection} title={<h2 className={styles.cardTitle}>{t.stockTitle}</h2>}>
      {/* Vertical: inline, the long label and the box on one unbreakable line overflowed a phone. */}
      <Form
        layout="vertical"
        onFinish={() => adjust.mutate({ saleId, delta: delta.trim() === "" ? Number.NaN : Number(delta) })}
        noValidate
      >
        <Form.Item
          label={t.stockDelta}
          htmlFor={inputId}
          validateStatus={adjust.error ? "error" : undefined}
          help={
            adjust.error ? (
              <span data-testid="stock-error" role="alert">
                {fieldError ?? adjust.error.message}
              </span>
            ) : undefined
          }
        >
          <Input id={inputId} inputMode="numeric" value={delta} onChange={(e) => setDelta(e.target.value)} style={{ width: 140 }} />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" loading={adjust.isPending}>
            {t.apply}
          </Button>
        </Form.Item>
      </Form>
      {adjust.data ? (
        <p className="status ok" role="status" data-testid="stock-result">
          {t.stockResult(adjust.data)}
        </p>
      ) : null}
    </Card>
  );
}

/** A room sale's line: who waits, who is admitted, how fast, and the longest wait. */
function RoomPanel({ room }: { room: RoomGauges | null }) {
  const t = DASHBOARD_MESSAGES[useLang()];
  if (!room)
    return (
      <p className="status wait" data-testid="room-panel">
        {t.roomNotLoaded}
      </p>
    );
  const notes = [
    t.roomOrder[room.order],
    room.order === "RANDOM" ? (room.drawn === null ? t.roomNotDrawn : t.roomDrawn(room.drawn)) : null,
    room.challenge ? t.roomChallenge : null,
  ];
  return (
    <div data-testid="room-panel">
      <h3>{t.roomPanel}</h3>
      <Row gutter={[16, 16]}>
        <Col xs={12} sm={8} lg={4}>
          <Figure title={t.roomWaiting} value={room.waiting.toLocaleString()} testId="room-waiting" />
        </Col>
        <Col xs={12} sm={8} lg={4}>
          <Figure title={t.roomAdmitted} value={room.admitted.toLocaleString()} testId="room-admitted" />
        </Col>
        <Col xs={12} sm={8} lg={4}>
          <Figure title={t.roomJoined} value={room.joined.toLocaleString()} testId="room-joined" />
        </Col>
        <Col xs={12} sm={8} lg={4}>
          <Figure title={t.roomRate} value={t.roomRateValue(room.rate)} testId="room-rate" />
        </Col>
        <Col xs={12} sm={8} lg={4}>
          <Figure title={t.roomOldestWait} value={t.roomOldestWaitValue(room.oldestWaitSeconds)} testId="room-oldest-wait" />
        </Col>
      </Row>
      <p className="muted">{notes.filter(Boolean).join(" · ")}</p>
    </div>
  );
}
