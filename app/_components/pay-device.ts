import type { PayDevice } from "@/server/payments/provider";

/** What the browser tells about itself, as far as choosing a provider's flow goes. */
export interface DeviceSignals {
  userAgent: string;
  /** The primary pointer is a finger (`(pointer: coarse)`). */
  coarsePointer: boolean;
  /** The screen's shorter side in CSS pixels (0 when unknown). */
  screenShortSide: number;
}

/** Phones' screens are at most this wide held upright; tablets and laptops are wider. */
export const PHONE_MAX_SHORT_SIDE = 600;

/** The server's rule (deviceFromUserAgent in server/payments/pay.ts), plus iPod. */
const MOBILE_USER_AGENT = /Mobile|Android|iPhone|iPod/i;

/**
 * Which flow order.pay should start: a phone gets the providers' mobile pages (Alipay wap pay,
 * WeChat H5), anything else the desktop ones (Alipay page pay, a WeChat QR code to scan with a
 * phone). A phone is a mobile User-Agent, or a touch screen of a phone's size (a phone browser
 * asking for the desktop site still cannot scan its own screen). Pure.
 */
export function payDevice(signals: DeviceSignals): PayDevice {
  if (MOBILE_USER_AGENT.test(signals.userAgent)) return "phone";
  const phoneSized = signals.screenShortSide > 0 && signals.screenShortSide <= PHONE_MAX_SHORT_SIDE;
  return signals.coarsePointer && phoneSized ? "phone" : "desktop";
}

/** This browser's signals; call in an event handler or effect, never while rendering on the server. */
export function browserDeviceSignals(): DeviceSignals {
  return {
    userAgent: navigator.userAgent,
    coarsePointer: window.matchMedia?.("(pointer: coarse)").matches ?? false,
    screenShortSide: Math.min(window.screen?.width ?? 0, window.screen?.height ?? 0),
  };
}
