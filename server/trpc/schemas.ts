import { z } from "zod";
import { RESERVATION_ID_PATTERN } from "../seckill/reservation";
import { PURCHASE_TOKEN_PATTERN } from "../seckill/purchase-token";
import { TICKET_PATTERN } from "../room/ticket";
import { CONTACT_TOKEN_PATTERN } from "../gateway/contact-token";
import { withinPasswordLimit } from "../gateway/password";
import { INPUT_SENTENCES } from "./input-errors";
import { PAYMENT_PROVIDER_NAMES } from "../platform/env";

/** Input shapes shared by several procedures. */
export const saleIdInput = z.object({
  saleId: z.number({ error: INPUT_SENTENCES.saleId.en }).int().positive().max(2_147_483_647),
});

const ticketText = z.string({ error: INPUT_SENTENCES.ticketMalformed.en }).regex(TICKET_PATTERN, INPUT_SENTENCES.ticketMalformed.en);

/**
 * seckill.purchase: a purchase token (seckill.token), or in a sale with a waiting room the
 * room's ticket (room.join) and, when the room asks for one, the challenge's solution.
 */
export const purchaseInput = saleIdInput
  .extend({
    token: z.string({ error: INPUT_SENTENCES.token.en }).regex(PURCHASE_TOKEN_PATTERN, INPUT_SENTENCES.tokenMalformed.en).optional(),
    ticket: ticketText.optional(),
    // An ALTCHA payload (base64 JSON): small; a bound keeps a forged one cheap to refuse.
    solution: z.string({ error: INPUT_SENTENCES.solutionMalformed.en }).max(2048, INPUT_SENTENCES.solutionMalformed.en).optional(),
  })
  .refine((input) => (input.token === undefined) !== (input.ticket === undefined), { message: INPUT_SENTENCES.token.en, path: ["token"] });

export const roomJoinInput = saleIdInput.extend({
  again: z.boolean({ error: INPUT_SENTENCES.again.en }).optional(),
});

export const roomStatusInput = saleIdInput.extend({ ticket: ticketText });

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
  password: z.string().min(8, INPUT_SENTENCES.passwordTooShort.en).refine(withinPasswordLimit, INPUT_SENTENCES.passwordTooLong.en),
});

/** auth.verifyContact: the token of the mailed link, as it came (the page reads it from ?token=). */
export const verifyContactInput = z.object({
  token: z
    .string({ error: INPUT_SENTENCES.verificationToken.en })
    .max(200, INPUT_SENTENCES.verificationToken.en)
    .regex(CONTACT_TOKEN_PATTERN, INPUT_SENTENCES.verificationToken.en),
});
