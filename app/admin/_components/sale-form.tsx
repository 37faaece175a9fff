"use client";
import { useState, type FormEvent, type ReactNode } from "react";

/** The fields both "New sale" and "Edit sale" show; prices in yuan, sent as cents. */
export interface SaleFormValues {
  productName: string;
  description: string;
  originalPriceCents: number;
  priceCents: number;
  stock?: number;
  /** Redis stock buckets, chosen with the stock at creation only. */
  stockBuckets?: number;
  perUserLimit: number;
  startsAt: Date;
  endsAt: Date;
  requireRealName: boolean;
  minMemberLevel: number;
}

type FieldErrors = Record<string, string[] | undefined> | null | undefined;

/** datetime-local wants local time without a zone. */
function toLocalInput(date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

function Field({ name, label, errors, children }: { name: string; label: string; errors: FieldErrors; children: ReactNode }) {
  const problems = errors?.[name];
  return (
    <label>
      {label}
      {children}
      {problems?.length ? <span className="field-error" role="alert" data-testid={`error-${name}`}>{problems.join(" ")}</span> : null}
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
  const { initial, errors } = props;
  const [v, setV] = useState({
    productName: initial.productName,
    description: initial.description,
    originalPrice: (initial.originalPriceCents / 100).toFixed(2),
    price: (initial.priceCents / 100).toFixed(2),
    stock: String(initial.stock ?? ""),
    stockBuckets: String(initial.stockBuckets ?? 1),
    perUserLimit: String(initial.perUserLimit),
    startsAt: toLocalInput(initial.startsAt),
    endsAt: toLocalInput(initial.endsAt),
    requireRealName: initial.requireRealName,
    minMemberLevel: String(initial.minMemberLevel),
  });
  const set = (key: keyof typeof v) => (e: { target: { value: string } }) => setV({ ...v, [key]: e.target.value });
  // Empty or non-numeric fields go to the server as NaN, which its rules name field by field.
  const cents = (yuan: string) => Math.round(Number(yuan) * 100);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    props.onSubmit({
      productName: v.productName,
      description: v.description,
      originalPriceCents: cents(v.originalPrice),
      priceCents: cents(v.price),
      ...(props.withStock ? { stock: Number(v.stock), stockBuckets: Number(v.stockBuckets) } : {}),
      perUserLimit: Number(v.perUserLimit),
      startsAt: new Date(v.startsAt),
      endsAt: new Date(v.endsAt),
      requireRealName: v.requireRealName,
      minMemberLevel: Number(v.minMemberLevel),
    });
  };
  return (
    <form className="stack wide" onSubmit={submit} noValidate>
      <Field name="productName" label="Product name" errors={errors}>
        <input value={v.productName} onChange={set("productName")} />
      </Field>
      <Field name="description" label="Description" errors={errors}>
        <input value={v.description} onChange={set("description")} />
      </Field>
      <div className="form-row">
        <Field name="originalPriceCents" label="Original price (¥)" errors={errors}>
          <input inputMode="decimal" value={v.originalPrice} onChange={set("originalPrice")} />
        </Field>
        <Field name="priceCents" label="Sale price (¥)" errors={errors}>
          <input inputMode="decimal" value={v.price} onChange={set("price")} />
        </Field>
      </div>
      <div className="form-row">
        {props.withStock ? (
          <Field name="stock" label="Stock (units)" errors={errors}>
            <input inputMode="numeric" value={v.stock} onChange={set("stock")} />
          </Field>
        ) : null}
        {props.withStock ? (
          <Field name="stockBuckets" label="Stock buckets (1 unless one item needs several Redis shards)" errors={errors}>
            <input inputMode="numeric" value={v.stockBuckets} onChange={set("stockBuckets")} />
          </Field>
        ) : null}
        <Field name="perUserLimit" label="Limit per shopper" errors={errors}>
          <input inputMode="numeric" value={v.perUserLimit} onChange={set("perUserLimit")} />
        </Field>
      </div>
      <div className="form-row">
        <Field name="startsAt" label="Starts at" errors={errors}>
          <input type="datetime-local" value={v.startsAt} onChange={set("startsAt")} />
        </Field>
        <Field name="endsAt" label="Ends at" errors={errors}>
          <input type="datetime-local" value={v.endsAt} onChange={set("endsAt")} />
        </Field>
      </div>
      <div className="form-row">
        <Field name="minMemberLevel" label="Minimum member level" errors={errors}>
          <input inputMode="numeric" value={v.minMemberLevel} onChange={set("minMemberLevel")} />
        </Field>
        <label className="check">
          <input type="checkbox" checked={v.requireRealName} onChange={(e) => setV({ ...v, requireRealName: e.target.checked })} />
          Real-name verified shoppers only
        </label>
      </div>
      <button type="submit" disabled={props.pending}>{props.submitLabel}</button>
      {props.message ? <p className="status bad" role="alert">{props.message}</p> : null}
    </form>
  );
}
