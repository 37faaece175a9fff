import { AppError, httpStatusOf } from "@/server/errors";
import { confirmSandboxCheckout } from "@/server/payments/sandbox-gateway";
import { getServices } from "@/server/services";

/** The sandbox cashier's Confirm button: take the (pretend) payment, send the buyer back. */
export async function POST(req: Request) {
  const form = await req.formData();
  const params = Object.fromEntries([...form.entries()].flatMap(([name, value]) => (typeof value === "string" ? [[name, value]] : [])));
  try {
    const { returnUrl } = await confirmSandboxCheckout(await getServices(), params);
    // 303: the browser follows with a GET; a relative Location keeps the buyer on this origin.
    return new Response(null, { status: 303, headers: { location: returnUrl } });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return new Response(error.message, { status: httpStatusOf(error.code), headers: { "content-type": "text/plain; charset=utf-8" } });
  }
}
