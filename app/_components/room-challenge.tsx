"use client";
import { useEffect, useRef } from "react";
import type { RoomChallenge } from "@/server/room/challenge";
import { challengeIdentity } from "./room-challenge-identity";

export type ChallengeProgress = "solving" | "solved" | "failed";

/**
 * Set up once per page: the widget's build without bundled workers, whose default build would
 * start its solvers from blob: URLs the Content-Security-Policy refuses. Our worker is the
 * widget's own PBKDF2 solver, served from our origin like every other script.
 */
let widgetReady: Promise<void> | undefined;
function loadWidget(): Promise<void> {
  widgetReady ??= import("altcha/external").then(() => {
    const solver = () => new Worker(new URL("./room-challenge.worker.ts", import.meta.url), { name: "room-challenge" });
    for (const algorithm of ["PBKDF2/SHA-256", "PBKDF2/SHA-384", "PBKDF2/SHA-512"]) globalThis.$altcha.algorithms.set(algorithm, solver);
  });
  return widgetReady;
}

/**
 * The widget as the waiting room uses it: solving starts when we say, nothing shown, no
 * attribution link, no pointer-movement collector (the server asks for none), no artificial
 * minimum duration; the timeout is the widget's default (90 s), far above the costliest room challenge.
 */
const WIDGET_CONFIGURATION = {
  auto: "off",
  display: "invisible",
  hideFooter: true,
  hideLogo: true,
  humanInteractionSignature: false,
  minDuration: 0,
};

/**
 * Solves the room's proof-of-work challenge in the background while the shopper waits (Web
 * Workers, nothing to click, nothing loaded from another host) and hands the solution payload
 * for seckill.purchase to `onSolved`. It renders nothing a person or a screen reader meets: the
 * widget sits in a hidden element, so it takes no focus and announces nothing; the page says
 * what it needs to through `onProgress`. A new challenge (a new seat) starts a new solve; the
 * same challenge read again does not.
 */
export function RoomChallengeSolver({
  challenge,
  onSolved,
  onProgress,
}: {
  challenge: RoomChallenge;
  onSolved: (solution: string) => void;
  onProgress?: (progress: ChallengeProgress) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const latest = useRef({ challenge, onSolved, onProgress });
  useEffect(() => {
    latest.current = { challenge, onSolved, onProgress };
  });
  const identity = challengeIdentity(challenge);

  useEffect(() => {
    if (!identity) return;
    const controller = new AbortController();
    let widget: HTMLElementTagNameMap["altcha-widget"] | undefined;
    const report = (progress: ChallengeProgress) => {
      if (!controller.signal.aborted) latest.current.onProgress?.(progress);
    };
    void (async () => {
      try {
        await loadWidget();
        if (controller.signal.aborted || !host.current) return;
        const element = document.createElement("altcha-widget");
        widget = element;
        element.setAttribute("challenge", JSON.stringify(latest.current.challenge));
        element.setAttribute("configuration", JSON.stringify(WIDGET_CONFIGURATION));
        const loaded = new Promise((resolve) => element.addEventListener("load", resolve, { once: true }));
        host.current.append(element);
        await loaded;
        if (controller.signal.aborted) return;
        report("solving");
        // Our controller, so leaving the page (or a new seat) stops the workers mid-solve.
        const result = await element.verify({ controller, minDuration: 0 });
        if (controller.signal.aborted) return;
        if (result?.payload) {
          report("solved");
          latest.current.onSolved(result.payload);
        } else {
          report("failed");
        }
      } catch {
        report("failed");
      }
    })();
    return () => {
      controller.abort();
      widget?.remove();
    };
  }, [identity]);

  return <div ref={host} hidden />;
}
