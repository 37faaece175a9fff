"use client";
import { useMutation } from "@tanstack/react-query";
import { ACCOUNT_MESSAGES } from "../_i18n/account-messages";
import { useLang, useMessages } from "../_i18n/client";
import { resendErrorText } from "./errors";
import { useTRPC } from "./trpc";

/**
 * "Your email is not verified — [Send again]": for a signed-in shopper whose address is not
 * verified, wherever that stops them (the sale page beside Buy on CONTACT_NOT_VERIFIED, the
 * /verify page after a used or expired link). Says where the new link went, or why not.
 */
export function ContactNotVerified() {
  const a = ACCOUNT_MESSAGES[useLang()];
  const t = useMessages();
  const trpc = useTRPC();
  // auth.* mutations refresh auth.me (providers.tsx), so ALREADY_VERIFIED takes this line away.
  const resend = useMutation(trpc.auth.resendVerification.mutationOptions());
  return (
    <div className="contact-unverified" data-testid="contact-unverified">
      <p className="status wait">
        {a.notVerified} —{" "}
        <button type="button" className="secondary small" disabled={resend.isPending} onClick={() => resend.mutate()}>
          {resend.isPending ? a.sending : a.sendAgain}
        </button>
      </p>
      {resend.data ? (
        <p className="status ok" role="status">
          {resend.data.status === "SENT" ? a.sentTo(resend.data.email) : a.alreadyVerified}
        </p>
      ) : null}
      {resend.isError ? (
        <p className="status bad" role="alert">
          {resendErrorText(resend.error, t)}
        </p>
      ) : null}
    </div>
  );
}
