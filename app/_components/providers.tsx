"use client";
import { MutationCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, httpLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import { useState, type ReactNode } from "react";
import superjson from "superjson";
import { EventSource } from "eventsource";
import type { AppRouter } from "@/server/trpc/root";
import { isUnbatchable, SECKILL_ENDPOINT, SECKILL_PROCEDURES, TRPC_ENDPOINT, TRPC_MAX_BATCH_CALLS } from "@/server/platform/endpoints";
import type { Lang } from "../_i18n/messages";
import { LangProvider } from "../_i18n/client";
import { TRPCProvider } from "./trpc";

/** tRPC's mutation keys are `[["auth", "signIn"]]`-shaped: the procedure's path, then options. */
function isAuthMutation(key: readonly unknown[] | undefined): boolean {
  const path = key?.[0];
  return Array.isArray(path) && path[0] === "auth";
}

/** The auth mutations that can change whether the shopper's email counts as verified. */
function isVerificationMutation(key: readonly unknown[] | undefined): boolean {
  const path = key?.[0];
  return Array.isArray(path) && path[0] === "auth" && (path[1] === "verifyContact" || path[1] === "resendVerification");
}

export function Providers({ lang, children }: { lang: Lang; children: ReactNode }) {
  const [queryClient] = useState(() => {
    const client: QueryClient = new QueryClient({
      defaultOptions: { queries: { staleTime: 1000, retry: 1 } },
      // Any sign-in, sign-up or sign-out, whichever form made it (the shop's, the console's),
      // changes who the header shows: ask again at once rather than after a reload. A verified
      // email (a link, or Send again answering "already verified": verified in another tab) also
      // changes what the sale page says the shopper may buy: its standing is asked again too.
      mutationCache: new MutationCache({
        onSuccess: (_data, _variables, _context, mutation) => {
          if (!isAuthMutation(mutation.options.mutationKey)) return;
          void client.invalidateQueries({ queryKey: [["auth", "me"]] });
          if (isVerificationMutation(mutation.options.mutationKey)) void client.invalidateQueries({ queryKey: [["sale", "myStanding"]] });
        },
      }),
    });
    return client;
  });
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        // Subscriptions (the room's status, purchase results) arrive as server-sent events, through an
        // EventSource that tells a refused stream's HTTP status (429: too many open), which the browser's does not.
        splitLink({
          condition: (op) => op.type === "subscription",
          true: httpSubscriptionLink({ url: TRPC_ENDPOINT, transformer: superjson, EventSource }),
          false: splitLink({
            // The purchase path goes alone to the seckill service (the same router, served lean),
            // and the clock goes alone too: in a batch its answer would wait for the slowest query,
            // and the countdown's offset is only as good as the round trip is short. auth.* goes
            // alone because the server refuses a batch carrying one.
            condition: (op) => SECKILL_PROCEDURES.has(op.path) || op.path === "clock.now" || isUnbatchable(op.path),
            true: splitLink({
              condition: (op) => SECKILL_PROCEDURES.has(op.path),
              true: httpLink({ url: SECKILL_ENDPOINT, transformer: superjson }),
              false: httpLink({ url: TRPC_ENDPOINT, transformer: superjson }),
            }),
            // Split where the server's batch bound is (each call counts at the per-IP gate).
            false: httpBatchLink({ url: TRPC_ENDPOINT, transformer: superjson, maxItems: TRPC_MAX_BATCH_CALLS }),
          }),
        }),
      ],
    }),
  );
  return (
    <LangProvider lang={lang}>
      <QueryClientProvider client={queryClient}>
        <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
          {children}
        </TRPCProvider>
      </QueryClientProvider>
    </LangProvider>
  );
}
