"use client";
import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { clockOffset, type ClockSample } from "./clock-offset";
import { useTRPCClient } from "./trpc";

const SAMPLES = 3;

/**
 * The offset from this browser's clock to the shop's, measured once per page (and again every
 * few minutes) from a few round trips to `clock.now`. Null until measured.
 */
export function useClockOffset(): number | null {
  const client = useTRPCClient();
  const offset = useQuery({
    queryKey: ["server-clock-offset"],
    queryFn: async () => {
      const samples: ClockSample[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const sentAt = Date.now();
        const { nowMs } = await client.clock.now.query();
        samples.push({ sentAt, receivedAt: Date.now(), serverNowMs: nowMs });
      }
      return clockOffset(samples);
    },
    staleTime: 5 * 60_000,
    refetchInterval: 5 * 60_000,
  });
  return offset.data ?? null;
}

/** The shop's time now, re-rendering every `tickMs`; null until the offset is known. */
export function useServerNow(tickMs = 250): number | null {
  const offset = useClockOffset();
  const [browserNow, setBrowserNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setBrowserNow(Date.now()), tickMs);
    return () => clearInterval(timer);
  }, [tickMs]);
  return offset === null ? null : browserNow + offset;
}
