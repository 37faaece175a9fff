import { handlePaymentNotifyRequest } from "@/server/payments/notify";
import { getServices } from "@/server/composition";

export const dynamic = "force-dynamic";

/** WeChat Pay's payment and refund notifies (JSON), answered as APIv3 says. */
export async function POST(req: Request) {
  return handlePaymentNotifyRequest(req, await getServices(), "wechatpay");
}
