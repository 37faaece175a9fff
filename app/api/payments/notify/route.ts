import { handlePaymentNotifyRequest } from "@/server/payments/notify";
import { getServices } from "@/server/services";

export const dynamic = "force-dynamic";

export async function POST(req: Request) {
  return handlePaymentNotifyRequest(req, await getServices());
}
