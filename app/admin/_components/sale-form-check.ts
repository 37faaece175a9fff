import { acrossFieldProblems, fieldMessageIn, newSaleInput, saleTerms, startIsInPast } from "@/server/admin/sale-form";
import type { Lang } from "@/server/platform/i18n";

/** What the sale form holds while the operator types: text as typed, prices in yuan. */
export interface SaleDraft {
  productName: string;
  description: string;
  imageUrl: string;
  originalPrice: string;
  price: string;
  stock: string;
  stockBuckets: string;
  unitLimit: string;
  startsAt: string;
  endsAt: string;
  requireRealName: boolean;
  requireVerifiedContact: boolean;
  accountsCreatedBefore: string;
  minMemberLevel: string;
  admissionRate: string;
  arrivalOrder: "RANDOM" | "ARRIVAL";
  purchaseChallenge: boolean;
}

/** Field name → the one message shown beside it, in the operator's language. */
export type FieldProblems = Partial<Record<string, string>>;

/** Empty or non-numeric text becomes NaN, which the rules name field by field. */
const number = (text: string) => (text.trim() === "" ? Number.NaN : Number(text));
const yuanToCents = (yuan: string) => Math.round(number(yuan) * 100);

/** The values the server is sent for a draft (dates in the browser's zone, prices in cents). */
export function saleValuesOf(draft: SaleDraft, withStock: boolean) {
  return {
    productName: draft.productName,
    description: draft.description,
    imageUrl: draft.imageUrl.trim() || null,
    originalPriceCents: yuanToCents(draft.originalPrice),
    priceCents: yuanToCents(draft.price),
    ...(withStock ? { stock: number(draft.stock), stockBuckets: number(draft.stockBuckets) } : {}),
    unitLimit: number(draft.unitLimit),
    startsAt: new Date(draft.startsAt),
    endsAt: new Date(draft.endsAt),
    requireRealName: draft.requireRealName,
    requireVerifiedContact: draft.requireVerifiedContact,
    accountsCreatedBefore: draft.accountsCreatedBefore ? new Date(draft.accountsCreatedBefore) : null,
    minMemberLevel: number(draft.minMemberLevel),
    admissionRate: number(draft.admissionRate),
    arrivalOrder: draft.arrivalOrder,
    purchaseChallenge: draft.purchaseChallenge,
  };
}

/**
 * Every problem of a draft at once, by the server's own rules (server/admin/sale-form.ts), the
 * first per field: the operator fixes them in one pass instead of meeting them one after another.
 * `previousStartsAt` (an edit): a live sale may keep the start it opened with.
 */
export function checkSaleDraft(
  draft: SaleDraft,
  {
    withStock,
    lang,
    now,
    previousStartsAt,
    startInPast,
  }: { withStock: boolean; lang: Lang; now: Date; previousStartsAt?: Date; startInPast: string },
): FieldProblems {
  const values = saleValuesOf(draft, withStock);
  const problems: FieldProblems = {};
  const note = (field: string, message: string) => {
    problems[field] ??= fieldMessageIn(lang, message);
  };
  const parsed = (withStock ? newSaleInput : saleTerms).safeParse(values);
  if (!parsed.success) for (const issue of parsed.error.issues) note(String(issue.path[0] ?? "form"), issue.message);
  if (!Number.isNaN(values.startsAt.getTime()) && startIsInPast(values.startsAt, now, previousStartsAt)) problems.startsAt = startInPast;
  const valid = (n: number) => (Number.isFinite(n) ? n : undefined);
  const validDate = (d: Date) => (Number.isNaN(d.getTime()) ? undefined : d);
  for (const { field, message } of acrossFieldProblems({
    priceCents: valid(values.priceCents),
    originalPriceCents: valid(values.originalPriceCents),
    startsAt: validDate(values.startsAt),
    endsAt: validDate(values.endsAt),
    admissionRate: valid(values.admissionRate),
    purchaseChallenge: values.purchaseChallenge,
  })) {
    note(field, message);
  }
  return problems;
}

/** The server's field errors (zod's, by field) as the form shows them: the first per field, in the operator's language. */
export function serverFieldProblems(fieldErrors: Record<string, string[] | undefined> | null | undefined, lang: Lang): FieldProblems {
  const problems: FieldProblems = {};
  for (const [field, messages] of Object.entries(fieldErrors ?? {})) {
    if (messages?.length) problems[field] = fieldMessageIn(lang, messages[0]!);
  }
  return problems;
}
