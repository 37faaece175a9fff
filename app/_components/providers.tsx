"use client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, httpLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import { useState, type ReactNode } from "react";
import superjson from "superjson";
import type { AppRouter } from "@/server/trpc/root";
import type { Lang } from "../_i18n/messages";
import { LangProvider } from "../_i18n/client";
import { TRPCProvider } from "./trpc";

export function Providers({ lang, children }: { lang: Lang; children: ReactNode }) {
  const [queryClient] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 1000, retry: 1 } } }),
  );
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        // Subscriptions (purchase results) arrive as server-sent events.
        splitLink({
          condition: (op) => op.type === "subscription",
          true: httpSubscriptionLink({ url: "/api/trpc", transformer: superjson }),
          // The clock goes alone: in a batch its answer would wait for the slowest query, and the
          // countdown's offset is only as good as the round trip is short.
          false: splitLink({
            condition: (op) => op.path === "clock.now",
            true: httpLink({ url: "/api/trpc", transformer: superjson }),
            false: httpBatchLink({ url: "/api/trpc", transformer: superjson }),
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
