"use client";
import { useEffect, useId, useState, type ReactNode } from "react";
import { Alert, Button, Checkbox, Col, Form, Input, Radio, Row } from "antd";
import { useLang } from "@/app/_i18n/client";
import { ADMIN_MESSAGES } from "@/app/_i18n/admin-messages";
import { isImageUrl } from "@/server/admin/sale-form";
import { checkSaleDraft, saleValuesOf, serverFieldProblems, type FieldProblems, type SaleDraft } from "./sale-form-check";
import styles from "../admin.module.css";

/** The fields both "New sale" and "Edit sale" show; prices in yuan, sent as cents. */
export interface SaleFormValues {
  productName: string;
  description: string;
  imageUrl?: string | null;
  originalPriceCents: number;
  priceCents: number;
  stock?: number;
  /** Redis stock buckets, chosen with the stock at creation only. */
  stockBuckets?: number;
  unitLimit: number;
  startsAt: Date;
  endsAt: Date;
  requireRealName: boolean;
  requireVerifiedContact: boolean;
  /** Accounts created at or after this moment may not buy; null = any account. */
  accountsCreatedBefore: Date | null;
  minMemberLevel: number;
  /** Waiting room: places admitted per second, 0 = none. */
  admissionRate: number;
  arrivalOrder: "RANDOM" | "ARRIVAL";
  purchaseChallenge: boolean;
}

type FieldErrors = Record<string, string[] | undefined> | null | undefined;

/** datetime-local wants local time without a zone; to the second, as the sale opens to the second. */
function toLocalInput(date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 19);
}

/** The browser's zone as an operator reads it: "Asia/Shanghai (GMT+8)". */
export function timeZoneLabel(at = new Date()): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone ?? "local time";
  const minutes = -at.getTimezoneOffset();
  const sign = minutes >= 0 ? "+" : "−";
  const h = Math.floor(Math.abs(minutes) / 60);
  const m = Math.abs(minutes) % 60;
  return `${zone} (GMT${sign}${h}${m ? `:${String(m).padStart(2, "0")}` : ""})`;
}

/** The zone is the browser's, known only after hydration (the server renders in its own). */
export function useTimeZoneLabel(): string {
  const [label, setLabel] = useState("");
  useEffect(() => setLabel(timeZoneLabel()), []);
  return label;
}

function draftOf(initial: SaleFormValues): SaleDraft {
  return {
    productName: initial.productName,
    description: initial.description,
    imageUrl: initial.imageUrl ?? "",
    originalPrice: (initial.originalPriceCents / 100).toFixed(2),
    price: (initial.priceCents / 100).toFixed(2),
    stock: String(initial.stock ?? ""),
    stockBuckets: String(initial.stockBuckets ?? 1),
    unitLimit: String(initial.unitLimit),
    startsAt: toLocalInput(initial.startsAt),
    endsAt: toLocalInput(initial.endsAt),
    requireRealName: initial.requireRealName,
    requireVerifiedContact: initial.requireVerifiedContact,
    accountsCreatedBefore: initial.accountsCreatedBefore ? toLocalInput(initial.accountsCreatedBefore) : "",
    minMemberLevel: String(initial.minMemberLevel),
    admissionRate: String(initial.admissionRate),
    arrivalOrder: initial.arrivalOrder,
    purchaseChallenge: initial.purchaseChallenge,
  };
}

export function SaleForm(props: {
  initial: SaleFormValues;
  withStock: boolean;
  submitLabel: string;
  pending: boolean;
  errors: FieldErrors;
  message: string | null;
  onSubmit(values: SaleFormValues): void;
}) {
  const lang = useLang();
  const t = ADMIN_MESSAGES[lang].form;
  const zone = useTimeZoneLabel();
  const formId = useId();
  const { initial } = props;
  const [v, setV] = useState<SaleDraft>(() => draftOf(initial));
  // Checked here before sending, every field at once, by the server's own rules; the server's
  // answer (the authority) lands on the same fields when it refuses what passed here.
  const [localProblems, setLocalProblems] = useState<FieldProblems | null>(null);
  const problems = localProblems ?? serverFieldProblems(props.errors, lang);
  const set = (key: keyof SaleDraft) => (e: { target: { value: string } }) => setV({ ...v, [key]: e.target.value });
  const submit = () => {
    const found = checkSaleDraft(v, {
      withStock: props.withStock,
      lang,
      now: new Date(),
      previousStartsAt: props.withStock ? undefined : initial.startsAt,
      startInPast: t.startInPast,
    });
    if (Object.keys(found).length > 0) {
      setLocalProblems(found);
      return;
    }
    setLocalProblems(null);
    const values = saleValuesOf(v, props.withStock);
    props.onSubmit({ ...values, stock: values.stock, stockBuckets: values.stockBuckets });
  };
  const id = (name: string) => `${formId}-${name}`;
  /** One field: its label tied to its input, its problem (or hint) beside it. */
  const field = (name: string, label: string, input: ReactNode, hint?: string) => (
    <Form.Item
      label={label}
      htmlFor={id(name)}
      validateStatus={problems[name] ? "error" : undefined}
      help={problems[name] ? <span data-testid={`error-${name}`}>{problems[name]}</span> : undefined}
      extra={hint}
    >
      {input}
    </Form.Item>
  );
  const image = v.imageUrl.trim();
  return (
    <Form layout="vertical" onFinish={submit} noValidate component="form" requiredMark={false}>
      <Row gutter={16}>
        <Col xs={24} lg={12}>
          {field("productName", t.productName, <Input id={id("productName")} value={v.productName} onChange={set("productName")} />)}
        </Col>
        <Col xs={24} lg={12}>
          {field("description", t.description, <Input id={id("description")} value={v.description} onChange={set("description")} />)}
        </Col>
      </Row>
      <Row gutter={16} align="top">
        <Col xs={24} lg={12}>
          {field(
            "imageUrl",
            t.imageUrl,
            <Input id={id("imageUrl")} inputMode="url" value={v.imageUrl} onChange={set("imageUrl")} placeholder="/products/…" />,
            t.imageHint,
          )}
        </Col>
        <Col xs={24} lg={12}>
          {image && isImageUrl(image) ? (
            // eslint-disable-next-line @next/next/no-img-element -- an operator's URL, any host: no optimiser
            <img className={styles.preview} src={image} alt={t.imagePreview} width={160} height={160} data-testid="image-preview" />
          ) : null}
        </Col>
      </Row>
      <Row gutter={16}>
        <Col xs={24} sm={12} lg={6}>
          {field(
            "originalPriceCents",
            t.originalPrice,
            <Input id={id("originalPriceCents")} inputMode="decimal" value={v.originalPrice} onChange={set("originalPrice")} />,
          )}
        </Col>
        <Col xs={24} sm={12} lg={6}>
          {field("priceCents", t.price, <Input id={id("priceCents")} inputMode="decimal" value={v.price} onChange={set("price")} />)}
        </Col>
        {props.withStock ? (
          <Col xs={24} sm={12} lg={6}>
            {field("stock", t.stock, <Input id={id("stock")} inputMode="numeric" value={v.stock} onChange={set("stock")} />)}
          </Col>
        ) : null}
        <Col xs={24} sm={12} lg={6}>
          {field(
            "unitLimit",
            t.unitLimit,
            <Input id={id("unitLimit")} inputMode="numeric" value={v.unitLimit} onChange={set("unitLimit")} />,
          )}
        </Col>
      </Row>
      {props.withStock
        ? field(
            "stockBuckets",
            t.stockBuckets,
            <Input
              id={id("stockBuckets")}
              inputMode="numeric"
              value={v.stockBuckets}
              onChange={set("stockBuckets")}
              style={{ maxWidth: 160 }}
            />,
            t.stockBucketsHint,
          )
        : null}
      <p className="muted" data-testid="time-zone">
        {zone ? t.timeZone(zone) : "\u00a0"}
      </p>
      <Row gutter={16}>
        <Col xs={24} sm={12}>
          {field(
            "startsAt",
            t.startsAt,
            <Input id={id("startsAt")} type="datetime-local" step={1} value={v.startsAt} onChange={set("startsAt")} />,
          )}
        </Col>
        <Col xs={24} sm={12}>
          {field("endsAt", t.endsAt, <Input id={id("endsAt")} type="datetime-local" step={1} value={v.endsAt} onChange={set("endsAt")} />)}
        </Col>
      </Row>
      <Row gutter={16}>
        <Col xs={24} sm={12}>
          {field(
            "minMemberLevel",
            t.minMemberLevel,
            <Input id={id("minMemberLevel")} inputMode="numeric" value={v.minMemberLevel} onChange={set("minMemberLevel")} />,
          )}
        </Col>
        <Col xs={24} sm={12}>
          {field(
            "accountsCreatedBefore",
            t.accountsCreatedBefore,
            <Input
              id={id("accountsCreatedBefore")}
              type="datetime-local"
              step={1}
              value={v.accountsCreatedBefore}
              onChange={set("accountsCreatedBefore")}
              data-testid="accounts-created-before"
            />,
            t.accountsCreatedBeforeHint,
          )}
        </Col>
      </Row>
      <Form.Item>
        <Checkbox checked={v.requireRealName} onChange={(e) => setV({ ...v, requireRealName: e.target.checked })}>
          {t.requireRealName}
        </Checkbox>
      </Form.Item>
      <Form.Item>
        <Checkbox checked={v.requireVerifiedContact} onChange={(e) => setV({ ...v, requireVerifiedContact: e.target.checked })}>
          {t.requireVerifiedContact}
        </Checkbox>
      </Form.Item>
      <Row gutter={16}>
        <Col xs={24} lg={12}>
          {field(
            "admissionRate",
            t.admissionRate,
            <Input
              id={id("admissionRate")}
              inputMode="numeric"
              value={v.admissionRate}
              onChange={set("admissionRate")}
              data-testid="admission-rate"
            />,
            t.admissionRateHint,
          )}
        </Col>
        <Col xs={24} lg={12}>
          <Form.Item
            label={<span id={id("arrivalOrder")}>{t.arrivalOrder}</span>}
            validateStatus={problems.arrivalOrder ? "error" : undefined}
            help={problems.arrivalOrder ? <span data-testid="error-arrivalOrder">{problems.arrivalOrder}</span> : undefined}
          >
            <Radio.Group
              aria-labelledby={id("arrivalOrder")}
              value={v.arrivalOrder}
              disabled={Number(v.admissionRate) === 0}
              onChange={(e) => setV({ ...v, arrivalOrder: e.target.value === "ARRIVAL" ? "ARRIVAL" : "RANDOM" })}
              options={[
                { value: "RANDOM", label: t.arrivalOrderRandom },
                { value: "ARRIVAL", label: t.arrivalOrderArrival },
              ]}
            />
          </Form.Item>
        </Col>
      </Row>
      <Form.Item
        validateStatus={problems.purchaseChallenge ? "error" : undefined}
        help={problems.purchaseChallenge ? <span data-testid="error-purchaseChallenge">{problems.purchaseChallenge}</span> : undefined}
      >
        <Checkbox checked={v.purchaseChallenge} onChange={(e) => setV({ ...v, purchaseChallenge: e.target.checked })}>
          {t.purchaseChallenge}
        </Checkbox>
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={props.pending}>
        {props.submitLabel}
      </Button>
      {props.message ? <Alert className={styles.formMessage} type="error" role="alert" title={props.message} /> : null}
    </Form>
  );
}
