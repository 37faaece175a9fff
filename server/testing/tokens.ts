/** A well-formed purchase token that no shopper was issued: its MAC matches nobody's (server/seckill/purchase-token.ts). */
export const FORGED_PURCHASE_TOKEN = `${"A".repeat(22)}.${"A".repeat(22)}`;
