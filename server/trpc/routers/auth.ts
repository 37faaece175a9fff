import { createTRPCRouter, publicProcedure, shopperProcedure } from "../init";
import { credentialsInput, verifyContactInput } from "../schemas";
import { resendVerification, verifyContact } from "../../gateway/contact-verification";
import { signedInAccount, signIn, signUp, type SignedIn } from "../../gateway/accounts";
import { sessionCookie } from "../../gateway/session";
import { revokeSessions } from "../../gateway/revocation";
import { deviceIdFrom, newDeviceCookie } from "../../gateway/device-cookie";
import type { Context } from "../init";

function withCookie(ctx: Context, signedIn: SignedIn) {
  ctx.resHeaders.append("set-cookie", sessionCookie(signedIn.token, ctx.services.env.SESSION_TTL_SECONDS, ctx.https));
  return signedIn;
}

/** The browser's device id; a browser without a valid one is given one for its next sign-up, this one counted as no device's. */
function deviceOf(ctx: Context): string | null {
  const { SESSION_SECRET, NODE_ENV } = ctx.services.env;
  const device = deviceIdFrom(ctx.requestHeaders, SESSION_SECRET);
  if (!device) ctx.resHeaders.append("set-cookie", newDeviceCookie(SESSION_SECRET, ctx.https, NODE_ENV));
  return device;
}

export const authRouter = createTRPCRouter({
  signUp: publicProcedure
    .input(credentialsInput)
    .mutation(async ({ ctx, input }) =>
      withCookie(ctx, await signUp(ctx.services, input, { clientAddress: ctx.clientAddress ?? "unknown", device: deviceOf(ctx) })),
    ),
  signIn: publicProcedure
    .input(credentialsInput)
    .mutation(async ({ ctx, input }) => withCookie(ctx, await signIn(ctx.services, input, ctx.clientAddress ?? "unknown"))),
  // Ends every session of the account, on every device, not only this browser's cookie.
  signOut: publicProcedure.mutation(async ({ ctx }) => {
    ctx.resHeaders.append("set-cookie", sessionCookie("", 0, ctx.https));
    if (ctx.session) await revokeSessions(ctx.services, ctx.session.userId);
    return { ok: true as const };
  }),
  me: publicProcedure.query(({ ctx }) => signedInAccount(ctx.services, ctx.session)),
  // Public: the link works in any browser, signed in or not (the token names the account).
  verifyContact: publicProcedure
    .input(verifyContactInput)
    .mutation(async ({ ctx, input }) => ({ status: (await verifyContact(ctx.services, input.token)).status })),
  resendVerification: shopperProcedure.mutation(({ ctx }) => resendVerification(ctx.services, ctx.session.userId)),
});
