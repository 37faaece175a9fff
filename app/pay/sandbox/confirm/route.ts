import { AppError, httpStatusOf } from "@/server/platform/errors";
import { readTextWithin } from "@/server/lib/bounded-body";
import { CROSS_SITE_TEXT, fromThisSite } from "@/server/gateway/browser-guard";
import { callerOf } from "@/server/gateway/revocation";
import { confirmSandboxCheckout } from "@/server/payments/sandbox-gateway";
import { getServices } from "@/server/composition";
import { langOf } from "@/server/platform/i18n";
import { sentence } from "@/server/platform/sentences/sentence";

/** The cashier's form: the signed checkout's few fields. */
const MAX_FORM_BYTES = 16 * 1024;

const SIGN_IN_TO_PAY = sentence((s) => s.payments.signInToPay);
const TOO_LARGE = sentence((s) => s.payments.requestTooLarge);

const text = (status: number, message: string) =>
  new Response(message, { status, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });

/**
 * The sandbox cashier's Confirm button: take the (pretend) payment for the signed-in shopper whose
 * order it is, send them back. No session: 401; another shopper's order: 404.
 */
export async function POST(req: Request) {
  const services = await getServices();
  // A form post carries the session cookie: only this site's own cashier page may send it.
  const lang = langOf(req.headers);
  if (!fromThisSite(req.headers, services.env.PUBLIC_BASE_URL)) return text(403, CROSS_SITE_TEXT[lang]);
  const { session } = await callerOf(services, req.headers);
  if (!session) return text(401, SIGN_IN_TO_PAY[lang]);
  const form = await readTextWithin(req, MAX_FORM_BYTES);
  if (form === null) return text(413, TOO_LARGE[lang]);
  const params = Object.fromEntries(new URLSearchParams(form));
  try {
    const { returnUrl } = await confirmSandboxCheckout(services, { params, userId: session.userId });
    // 303: the browser follows with a GET; returnUrl is a same-origin path (sameOriginPath).
    return new Response(null, { status: 303, headers: { location: returnUrl } });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return text(httpStatusOf(error.code), error.text[lang]);
  }
}
