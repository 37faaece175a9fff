import { handlePaymentNotifyRequest } from "@/server/payments/notify";
import { getServices } from "@/server/composition";

export const dynamic = "force-dynamic";

/** Alipay's asynchronous notify (form-urlencoded), answered `success` or `fail`. */
export async function POST(req: Request) {
  return handlePaymentNotifyRequest(req, await getServices(), "alipay");
}
