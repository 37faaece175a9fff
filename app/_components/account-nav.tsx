"use client";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ACCOUNT_MESSAGES } from "../_i18n/account-messages";
import { useLang, useMessages } from "../_i18n/client";
import { useTRPC } from "./trpc";
import styles from "./account.module.css";

/**
 * The header's account links: My orders, and Sign in / Sign up, or who is signed in and Sign out.
 * Every auth mutation refreshes `auth.me` (providers.tsx), so this follows a sign-in at once.
 */
export function AccountNav() {
  const t = useMessages();
  const a = ACCOUNT_MESSAGES[useLang()];
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  // Back to this page after signing in, unless this page is the other of the two forms.
  const pathname = usePathname();
  const back = pathname === "/" || pathname.startsWith("/sign-") ? "" : `?next=${encodeURIComponent(pathname)}`;
  // Signing out is two steps: first the page stops acting as the shopper (the header and every
  // signed-in card follow `auth.me`), then, once that render is committed, the server forgets the
  // session. The other order lets a card's effect ask for a token with the cookie already gone.
  const [signingOut, setSigningOut] = useState(false);
  const meKey = trpc.auth.me.queryKey();
  const signOut = useMutation(
    trpc.auth.signOut.mutationOptions({
      onSuccess: () => {
        // Everything cached belonged to the shopper who just left. Removed only now: queries still
        // mounted refetch once removed, and must see no session then.
        const mePath = JSON.stringify(meKey[0]);
        queryClient.removeQueries({ predicate: (query) => JSON.stringify(query.queryKey[0]) !== mePath });
        router.push("/");
        // Server-rendered pages (the console) drop what they showed the signed-in account.
        router.refresh();
      },
      // Still signed in after all: the header says so again.
      onError: () => void queryClient.invalidateQueries({ queryKey: meKey }),
      onSettled: () => setSigningOut(false),
    }),
  );
  const sendSignOut = signOut.mutate;
  useEffect(() => {
    if (signingOut && me.data === null && signOut.isIdle) sendSignOut();
  }, [signingOut, me.data, signOut.isIdle, sendSignOut]);
  const startSignOut = () => {
    signOut.reset();
    setSigningOut(true);
    queryClient.setQueryData(meKey, null);
  };
  return (
    <>
      <Link href="/orders">{t.myOrders}</Link>
      {signingOut ? (
        // Signed out in the page, not yet at the server: no Sign in link until the session is gone.
        <button type="button" className="secondary small" disabled>
          {t.signOut}
        </button>
      ) : me.data ? (
        <>
          <span className={styles.email} data-testid="account-email" title={a.signedInAs(me.data.email)}>
            {me.data.email}
          </span>
          <button type="button" className="secondary small" disabled={signOut.isPending} onClick={startSignOut}>
            {t.signOut}
          </button>
        </>
      ) : me.data === null ? (
        <>
          <Link href={`/sign-in${back}`}>{t.signIn}</Link>
          <Link href={`/sign-up${back}`}>{t.signUp}</Link>
        </>
      ) : null}
    </>
  );
}
