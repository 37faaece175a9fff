/**
 * Refusals answered in front of any sale, so counted for the whole shop: the gateway's per-IP
 * 429 and the front door's per-address connection cap. Pure, for the dashboard's charts too.
 */
export const SHOP_REFUSALS = ["GATEWAY_429", "FRONT_DOOR_429"] as const;
export type ShopRefusal = (typeof SHOP_REFUSALS)[number];
