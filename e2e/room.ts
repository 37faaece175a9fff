import type { BrowserContext } from "@playwright/test";
import type { Services } from "../server/platform/services";
import { createShoppers, type SeededShopper } from "../server/testing/seed";
import { SESSION_COOKIE } from "../server/gateway/session";
import { LANG_COOKIE, type Lang } from "../server/platform/i18n";
import { SECKILL_ENDPOINT } from "../server/platform/endpoints";
import { expect } from "./fixtures";
import { e2eBaseUrl } from "./e2e-env";

/** What the waiting-room specs share: shoppers made for one test, seated and signed in. */

export async function roomShoppers(services: Services, count: number): Promise<SeededShopper[]> {
  return createShoppers(services, count, { emailPrefix: `e2e-room-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}` });
}

/** Shoppers seated in the room through the API (room.join over HTTP, as any client would); their seats. */
export async function seatThroughApi(saleId: number, ahead: readonly SeededShopper[]): Promise<number[]> {
  const seats: number[] = [];
  for (const shopper of ahead) {
    const response = await fetch(`${e2eBaseUrl()}${SECKILL_ENDPOINT}/room.join`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${shopper.token}` },
      body: JSON.stringify({ json: { saleId } }),
    });
    const body = (await response.json()) as { result?: { data: { json: { status: string; seat?: number } } } };
    expect(body.result?.data.json.status, JSON.stringify(body)).toBe("WAITING");
    seats.push(body.result!.data.json.seat!);
  }
  return seats;
}

export async function signIn(context: BrowserContext, shopper: SeededShopper, lang: Lang) {
  await context.addCookies([
    { name: SESSION_COOKIE, value: shopper.token, url: e2eBaseUrl(), httpOnly: true, sameSite: "Lax" },
    { name: LANG_COOKIE, value: lang, url: e2eBaseUrl() },
  ]);
}
