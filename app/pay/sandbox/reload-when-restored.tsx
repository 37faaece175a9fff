"use client";
import { useEffect } from "react";

/**
 * Back to the cashier from the back-forward cache shows the page as it was before paying, with a
 * live Confirm: reload it, so the server says what became of the payment.
 */
export function ReloadWhenRestored() {
  useEffect(() => {
    const onShow = (event: PageTransitionEvent) => {
      if (event.persisted) window.location.reload();
    };
    window.addEventListener("pageshow", onShow);
    return () => window.removeEventListener("pageshow", onShow);
  }, []);
  return null;
}
