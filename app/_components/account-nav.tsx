"use client";
import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMessages } from "../_i18n/client";
import { useTRPC } from "./trpc";

/** The header's account links: My orders, and Sign in / Sign up or Sign out. */
export function AccountNav() {
  const t = useMessages();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  // Back to this page after signing in, unless this page is the other of the two forms.
  const pathname = usePathname();
  const back = pathname === "/" || pathname.startsWith("/sign-") ? "" : `?next=${encodeURIComponent(pathname)}`;
  const signOut = useMutation(
    trpc.auth.signOut.mutationOptions({
      // Everything cached belonged to the shopper who just left.
      onSuccess: async () => {
        queryClient.clear();
        router.push("/");
      },
    }),
  );
  return (
    <>
      <Link href="/orders">{t.myOrders}</Link>
      {me.data ? (
        <button type="button" className="secondary small" disabled={signOut.isPending} onClick={() => signOut.mutate()}>
          {t.signOut}
        </button>
      ) : me.data === null ? (
        <>
          <Link href={`/sign-in${back}`}>{t.signIn}</Link>
          <Link href={`/sign-up${back}`}>{t.signUp}</Link>
        </>
      ) : null}
    </>
  );
}
