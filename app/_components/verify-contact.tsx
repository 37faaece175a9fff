"use client";
import Link from "next/link";
import { useEffect, useRef } from "react";
import { useMutation, useQuery } from "@tanstack/react-query";
import { ACCOUNT_MESSAGES, type AccountMessages } from "../_i18n/account-messages";
import { useLang, useMessages } from "../_i18n/client";
import { ContactNotVerified } from "./contact-unverified";
import { errorText } from "./errors";
import { useTRPC } from "./trpc";

/** What a refused link means, by the code auth.verifyContact answers with. */
function refusalText(
  error: { message: string; data?: { code?: string; httpStatus?: number } | null },
  a: AccountMessages,
  t: ReturnType<typeof useMessages>,
): string {
  switch (error.data?.code) {
    case "CONFLICT":
      return a.linkUsed;
    case "PRECONDITION_FAILED":
      return a.linkExpired;
    case "BAD_REQUEST":
      return a.linkInvalid;
    default:
      return errorText(error, t);
  }
}

/**
 * The /verify page's card: follows the mailed link once, in the browser (a POST, so a mail
 * scanner fetching the link does not spend it), and says how it went; after a refused link, a
 * signed-in shopper not yet verified gets "Send again", anyone else the way to sign in.
 */
export function VerifyContact({ token }: { token: string | null }) {
  const a = ACCOUNT_MESSAGES[useLang()];
  const t = useMessages();
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const verify = useMutation(trpc.auth.verifyContact.mutationOptions());
  const { mutate } = verify;
  // Once per page: React may run an effect twice in development, and a second use is refused.
  const sent = useRef(false);
  useEffect(() => {
    if (!token || sent.current) return;
    sent.current = true;
    mutate({ token });
  }, [token, mutate]);

  const here = token ? `/verify?token=${encodeURIComponent(token)}` : "/verify";
  const refused = !token || verify.isError;
  return (
    <section className="card narrow" aria-labelledby="verify-title">
      <h1 id="verify-title">{a.verifyTitle}</h1>
      {!token ? (
        <p className="status bad" role="alert">
          {a.linkMissing}
        </p>
      ) : verify.isSuccess ? (
        <p className="status ok" role="status" data-testid="verify-result">
          {a.verified}
        </p>
      ) : verify.isError ? (
        <p className="status bad" role="alert" data-testid="verify-result">
          {refusalText(verify.error, a, t)}
        </p>
      ) : (
        <p className="status" role="status">
          {a.verifying}
        </p>
      )}
      {refused && me.data?.contactVerified ? <p className="status ok">{a.alreadyVerified}</p> : null}
      {refused && me.data && !me.data.contactVerified ? <ContactNotVerified /> : null}
      {refused && me.data === null ? (
        <p>
          <Link href={`/sign-in?next=${encodeURIComponent(here)}`}>{a.signInToResend}</Link>
        </p>
      ) : null}
      <p>
        <Link href="/">{t.backToSales}</Link>
      </p>
    </section>
  );
}
