import { handlePaymentNotifyRequest } from "@/server/payments/notify";
import { getServices } from "@/server/composition";

export const dynamic = "force-dynamic";

/** The built-in sandbox provider's notify (its own path, from before the real providers came). */
export async function POST(req: Request) {
  return handlePaymentNotifyRequest(req, await getServices(), "sandbox");
}
