import { z } from "zod";
import { RESERVATION_ID_PATTERN } from "../seckill/reservation";
import { PURCHASE_TOKEN_PATTERN } from "../seckill/purchase-token";
import { fitsBcrypt, PASSWORD_TOO_LONG } from "../gateway/password";
import { PAYMENT_PROVIDER_NAMES } from "../env";

/** Input shapes shared by several procedures. */
export const saleIdInput = z.object({
  saleId: z.number({ error: "saleId must be a number" }).int().positive().max(2_147_483_647),
});

export const purchaseInput = saleIdInput.extend({
  token: z.string({ error: "token is required: get one from seckill.token once the sale starts" }).regex(PURCHASE_TOKEN_PATTERN, "token is malformed"),
});

export const reservationIdInput = z.object({
  reservationId: z.string().regex(RESERVATION_ID_PATTERN, "reservationId is malformed"),
});

export const orderIdInput = z.object({
  orderId: z.number({ error: "orderId must be a number" }).int().positive().max(2_147_483_647),
});

/** order.pay: the provider (default: the first offered) and the flow (default: from the User-Agent). */
export const payInput = orderIdInput.extend({
  provider: z.enum(PAYMENT_PROVIDER_NAMES, { error: `provider must be one of ${PAYMENT_PROVIDER_NAMES.join(", ")}` }).optional(),
  device: z.enum(["desktop", "phone"], { error: "device must be desktop or phone" }).optional(),
});

export const credentialsInput = z.object({
  email: z.email("Enter a valid email address").max(191),
  password: z.string().min(8, "Use at least 8 characters").refine(fitsBcrypt, PASSWORD_TOO_LONG.en),
});
