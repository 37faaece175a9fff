import { createTRPCRouter, publicProcedure, shopperProcedure } from "../init";
import { credentialsInput, verifyContactInput } from "../schemas";
import { resendVerification, verifyContact } from "../../gateway/contact-verification";
import { signedInAccount, signIn, signUp, type SignedIn } from "../../gateway/accounts";
import { sessionCookie } from "../../gateway/session";
import { revokeSessions } from "../../gateway/revocation";
import type { Context } from "../init";

function withCookie(ctx: Context, signedIn: SignedIn) {
  ctx.resHeaders.append("set-cookie", sessionCookie(signedIn.token, ctx.services.env.SESSION_TTL_SECONDS, ctx.https));
  return signedIn;
}

export const authRouter = createTRPCRouter({
  signUp: publicProcedure.input(credentialsInput).mutation(async ({ ctx, input }) => withCookie(ctx, await signUp(ctx.services, input))),
  signIn: publicProcedure.input(credentialsInput).mutation(async ({ ctx, input }) => withCookie(ctx, await signIn(ctx.services, input, ctx.clientAddress ?? "unknown"))),
  // Ends every session of the account, on every device, not only this browser's cookie.
  signOut: publicProcedure.mutation(async ({ ctx }) => {
    ctx.resHeaders.append("set-cookie", sessionCookie("", 0, ctx.https));
    if (ctx.session) await revokeSessions(ctx.services, ctx.session.userId);
    return { ok: true as const };
  }),
  me: publicProcedure.query(({ ctx }) => signedInAccount(ctx.services, ctx.session)),
  // Public: the link works in any browser, signed in or not (the token names the account).
  verifyContact: publicProcedure.input(verifyContactInput).mutation(async ({ ctx, input }) => ({ status: (await verifyContact(ctx.services, input.token)).status })),
  resendVerification: shopperProcedure.mutation(({ ctx }) => resendVerification(ctx.services, ctx.session.userId)),
});
