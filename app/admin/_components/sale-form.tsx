"use client";
import { useEffect, useState, type FormEvent, type ReactNode } from "react";
import { useLang } from "@/app/_i18n/client";
import { ADMIN_MESSAGES } from "@/app/_i18n/admin-messages";
import { fieldMessageIn, isImageUrl, startIsInPast } from "@/server/admin/sale-form";
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

function Field({ name, label, hint, errors, children }: { name: string; label: string; hint?: string; errors: FieldErrors; children: ReactNode }) {
  const lang = useLang();
  const problems = errors?.[name];
  return (
    <label>
      {label}
      {hint ? <span className={styles.hint}>{hint}</span> : null}
      {children}
      {problems?.length ? (
        <span className="field-error" role="alert" data-testid={`error-${name}`}>
          {problems.map((p) => fieldMessageIn(lang, p)).join(" ")}
        </span>
      ) : null}
    </label>
  );
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
  const { initial } = props;
  const [v, setV] = useState({
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
  });
  // Checked here before sending, by the server's own rule: the server refuses it too.
  const [localErrors, setLocalErrors] = useState<FieldErrors>(null);
  const errors = localErrors ?? props.errors;
  const set = (key: keyof typeof v) => (e: { target: { value: string } }) => setV({ ...v, [key]: e.target.value });
  // Empty or non-numeric fields go to the server as NaN, which its rules name field by field.
  const cents = (yuan: string) => Math.round(Number(yuan) * 100);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const startsAt = new Date(v.startsAt);
    const editing = !props.withStock;
    if (!Number.isNaN(startsAt.getTime()) && startIsInPast(startsAt, new Date(), editing ? initial.startsAt : undefined)) {
      setLocalErrors({ startsAt: [t.startInPast] });
      return;
    }
    // The server's rule too (sale-form.ts): the challenge is solved while waiting in the room.
    if (v.purchaseChallenge && Number(v.admissionRate) === 0) {
      setLocalErrors({ purchaseChallenge: [t.challengeNeedsRoom] });
      return;
    }
    setLocalErrors(null);
    props.onSubmit({
      productName: v.productName,
      description: v.description,
      imageUrl: v.imageUrl.trim() || null,
      originalPriceCents: cents(v.originalPrice),
      priceCents: cents(v.price),
      ...(props.withStock ? { stock: Number(v.stock), stockBuckets: Number(v.stockBuckets) } : {}),
      unitLimit: Number(v.unitLimit),
      startsAt,
      endsAt: new Date(v.endsAt),
      requireRealName: v.requireRealName,
      requireVerifiedContact: v.requireVerifiedContact,
      accountsCreatedBefore: v.accountsCreatedBefore ? new Date(v.accountsCreatedBefore) : null,
      minMemberLevel: Number(v.minMemberLevel),
      admissionRate: Number(v.admissionRate),
      arrivalOrder: v.arrivalOrder,
      purchaseChallenge: v.purchaseChallenge,
    });
  };
  const image = v.imageUrl.trim();
  return (
    <form className="stack wide" onSubmit={submit} noValidate>
      <Field name="productName" label={t.productName} errors={errors}>
        <input value={v.productName} onChange={set("productName")} />
      </Field>
      <Field name="description" label={t.description} errors={errors}>
        <input value={v.description} onChange={set("description")} />
      </Field>
      <div className="form-row">
        <Field name="imageUrl" label={t.imageUrl} hint={t.imageHint} errors={errors}>
          <input inputMode="url" value={v.imageUrl} onChange={set("imageUrl")} placeholder="/products/…" />
        </Field>
        {image && isImageUrl(image) ? (
          // eslint-disable-next-line @next/next/no-img-element -- an operator's URL, any host: no optimiser
          <img className={styles.preview} src={image} alt={t.imagePreview} width={160} height={160} data-testid="image-preview" />
        ) : null}
      </div>
      <div className="form-row">
        <Field name="originalPriceCents" label={t.originalPrice} errors={errors}>
          <input inputMode="decimal" value={v.originalPrice} onChange={set("originalPrice")} />
        </Field>
        <Field name="priceCents" label={t.price} errors={errors}>
          <input inputMode="decimal" value={v.price} onChange={set("price")} />
        </Field>
      </div>
      <div className="form-row">
        {props.withStock ? (
          <Field name="stock" label={t.stock} errors={errors}>
            <input inputMode="numeric" value={v.stock} onChange={set("stock")} />
          </Field>
        ) : null}
        <Field name="unitLimit" label={t.unitLimit} errors={errors}>
          <input inputMode="numeric" value={v.unitLimit} onChange={set("unitLimit")} />
        </Field>
      </div>
      {props.withStock ? (
        <Field name="stockBuckets" label={t.stockBuckets} hint={t.stockBucketsHint} errors={errors}>
          <input inputMode="numeric" value={v.stockBuckets} onChange={set("stockBuckets")} />
        </Field>
      ) : null}
      <p className="muted" data-testid="time-zone">{zone ? t.timeZone(zone) : "\u00a0"}</p>
      <div className="form-row">
        <Field name="startsAt" label={t.startsAt} errors={errors}>
          <input type="datetime-local" step={1} value={v.startsAt} onChange={set("startsAt")} />
        </Field>
        <Field name="endsAt" label={t.endsAt} errors={errors}>
          <input type="datetime-local" step={1} value={v.endsAt} onChange={set("endsAt")} />
        </Field>
      </div>
      <div className="form-row">
        <Field name="minMemberLevel" label={t.minMemberLevel} errors={errors}>
          <input inputMode="numeric" value={v.minMemberLevel} onChange={set("minMemberLevel")} />
        </Field>
        <label className="check">
          <input type="checkbox" checked={v.requireRealName} onChange={(e) => setV({ ...v, requireRealName: e.target.checked })} />
          {t.requireRealName}
        </label>
      </div>
      <div className="form-row">
        <Field name="accountsCreatedBefore" label={t.accountsCreatedBefore} hint={t.accountsCreatedBeforeHint} errors={errors}>
          <input type="datetime-local" step={1} value={v.accountsCreatedBefore} onChange={set("accountsCreatedBefore")} data-testid="accounts-created-before" />
        </Field>
        <label className="check">
          <input
            type="checkbox"
            checked={v.requireVerifiedContact}
            onChange={(e) => setV({ ...v, requireVerifiedContact: e.target.checked })}
            data-testid="require-verified-contact"
          />
          {t.requireVerifiedContact}
        </label>
      </div>
      <div className="form-row">
        <Field name="admissionRate" label={t.admissionRate} hint={t.admissionRateHint} errors={errors}>
          <input inputMode="numeric" value={v.admissionRate} onChange={set("admissionRate")} data-testid="admission-rate" />
        </Field>
        <Field name="arrivalOrder" label={t.arrivalOrder} errors={errors}>
          <select value={v.arrivalOrder} onChange={(e) => setV({ ...v, arrivalOrder: e.target.value === "ARRIVAL" ? "ARRIVAL" : "RANDOM" })} disabled={Number(v.admissionRate) === 0}>
            <option value="RANDOM">{t.arrivalOrderRandom}</option>
            <option value="ARRIVAL">{t.arrivalOrderArrival}</option>
          </select>
        </Field>
      </div>
      <Field name="purchaseChallenge" label="" errors={errors}>
        <span className="check">
          <input type="checkbox" checked={v.purchaseChallenge} onChange={(e) => setV({ ...v, purchaseChallenge: e.target.checked })} data-testid="purchase-challenge" />
          {t.purchaseChallenge}
        </span>
      </Field>
      <button type="submit" disabled={props.pending}>{props.submitLabel}</button>
      {props.message ? <p className="status bad" role="alert">{props.message}</p> : null}
    </form>
  );
}
