import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLiveSale, createTestEnvironment, placeOrders, type TestEnvironment } from "../testing/harness";
import { createShoppers } from "../testing/seed";
import { warmUpSale } from "../warmup/warmup";
import { getSale, listSales } from "./catalog";
import { saleStanding } from "./sale-standing";

/**
 * What the storefront says to a shopper who bought: the standing names their order (so the page
 * links to it instead of a refusal), and the catalog hands on product pictures and new sales.
 */
let t: TestEnvironment;
beforeAll(async () => {
  t = await createTestEnvironment("standing", { PURCHASE_RATE_PER_SHOPPER: "0" });
});
afterAll(() => t?.cleanup());

describe("saleStanding", () => {
  it("names no order before buying, and the order after, while it stands", async () => {
    const { services } = t;
    const { saleId } = await createLiveSale(services, { stock: 2 });
    await warmUpSale(services, saleId);
    const [shopper] = await createShoppers(services, 1, { emailPrefix: "standing" });
    const before = await saleStanding(services, { userId: shopper!.id, saleId });
    expect(before).toMatchObject({ hint: null, held: 0, order: null });

    const [placed] = await placeOrders(services, saleId, [shopper!.id]);
    const after = await saleStanding(services, { userId: shopper!.id, saleId });
    expect(after).toMatchObject({ hint: "UNIT_LIMIT_REACHED", held: 1, order: { id: placed!.orderId, status: "WAIT_PAY" } });

    // A cancelled order gave its unit back: nothing to link to any more.
    await services.db.order.update({ where: { id: placed!.orderId }, data: { status: "CANCELLED" } });
    expect((await saleStanding(services, { userId: shopper!.id, saleId })).order).toBeNull();
  });
});

describe("the catalog", () => {
  it("returns each product's picture, null without one", async () => {
    const { services } = t;
    const { saleId, productId } = await createLiveSale(services, { stock: 1 });
    expect((await getSale(services, saleId)).imageUrl).toBeNull();
    await services.db.product.update({ where: { id: productId }, data: { imageUrl: "/products/lamp.svg" } });
    expect((await getSale(services, saleId)).imageUrl).toBe("/products/lamp.svg");
    expect((await listSales(services)).find((s) => s.id === saleId)?.imageUrl).toBe("/products/lamp.svg");
  });

  it("lists a new sale however many ended ones came before it", async () => {
    const { services } = t;
    const longAgo = Date.now() - 3 * 3600_000;
    for (let i = 0; i < 55; i++) {
      await createLiveSale(services, { stock: 1, startsAt: new Date(longAgo + i), endsAt: new Date(longAgo + 3600_000) });
    }
    const { saleId } = await createLiveSale(services, { stock: 1 });
    const listed = await listSales(services);
    expect(listed.map((s) => s.id)).toContain(saleId);
    expect(listed.filter((s) => s.phase === "ENDED").length).toBeLessThanOrEqual(10);
  });
});
