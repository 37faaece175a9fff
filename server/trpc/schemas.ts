import { z } from "zod";
import { RESERVATION_ID_PATTERN } from "../seckill/reservation";
import { PURCHASE_TOKEN_PATTERN } from "../seckill/purchase-token";
import { fitsBcrypt } from "../gateway/password";
import { INPUT_SENTENCES } from "./input-errors";
import { PAYMENT_PROVIDER_NAMES } from "../env";

/** Input shapes shared by several procedures. */
export const saleIdInput = z.object({
  saleId: z.number({ error: INPUT_SENTENCES.saleId.en }).int().positive().max(2_147_483_647),
});

export const purchaseInput = saleIdInput.extend({
  token: z.string({ error: INPUT_SENTENCES.token.en }).regex(PURCHASE_TOKEN_PATTERN, INPUT_SENTENCES.tokenMalformed.en),
});

export const reservationIdInput = z.object({
  reservationId: z.string().regex(RESERVATION_ID_PATTERN, INPUT_SENTENCES.reservationIdMalformed.en),
});

export const orderIdInput = z.object({
  orderId: z.number({ error: INPUT_SENTENCES.orderId.en }).int().positive().max(2_147_483_647),
});

/** order.pay: the provider (default: the first offered) and the flow (default: from the User-Agent). */
export const payInput = orderIdInput.extend({
  provider: z.enum(PAYMENT_PROVIDER_NAMES, { error: INPUT_SENTENCES.provider.en }).optional(),
  device: z.enum(["desktop", "phone"], { error: INPUT_SENTENCES.device.en }).optional(),
});

export const credentialsInput = z.object({
  email: z.email(INPUT_SENTENCES.email.en).max(191),
  password: z.string().min(8, INPUT_SENTENCES.passwordTooShort.en).refine(fitsBcrypt, INPUT_SENTENCES.passwordTooLong.en),
});
