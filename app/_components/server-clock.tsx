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

export interface ServerNow {
  /** The shop's time now (ms), or null with neither a measured offset nor the server's render time. */
  now: number | null;
  /** Whether `now` rests on the measured offset; before that it rests on the render time alone. */
  synced: boolean;
}

/**
 * The shop's time now, re-rendering every `tickMs`. `renderedAt`, the server's clock when it
 * rendered the page, stands in until the offset is measured, so the countdown shows at once (and
 * the first render matches the server's HTML); the measured offset then corrects it quietly.
 */
export function useServerNow(renderedAt?: number, tickMs = 250): ServerNow {
  const offset = useClockOffset();
  const [now, setNow] = useState<number | null>(renderedAt ?? null);
  // The browser clock at the first render, against the server's then: a guess within one page load.
  const [roughOffset] = useState(() => (renderedAt === undefined ? null : renderedAt - Date.now()));
  useEffect(() => {
    const best = offset ?? roughOffset;
    if (best === null) return;
    const tick = () => setNow(Date.now() + best);
    tick();
    const timer = setInterval(tick, tickMs);
    return () => clearInterval(timer);
  }, [offset, roughOffset, tickMs]);
  return { now, synced: offset !== null };
}
