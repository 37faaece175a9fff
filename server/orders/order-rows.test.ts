import { describe, expect, it } from "vitest";
import { orderInsertSql, orderRowParameters } from "./order-rows";

describe("order rows, as the worker and the bare-MySQL baselines write them", () => {
  it("builds one multi-row INSERT with one placeholder group per row", () => {
    const sql = orderInsertSql(3);
    expect(sql).toMatch(
      /^INSERT INTO orders \(reservation_id, stock_bucket, user_id, sale_id, product_id, amount_cents, status, pay_deadline\) VALUES /,
    );
    expect(sql.match(/'WAIT_PAY'/g)).toHaveLength(3);
    expect(sql.match(/\?/g)).toHaveLength(3 * 7);
    expect(() => orderInsertSql(0)).toThrow();
  });

  it("lays the parameters out row by row in the INSERT's column order", () => {
    const deadline = new Date(0);
    const parameters = orderRowParameters(
      { saleId: 7, productId: 3, amountCents: 500 },
      [
        { reservationId: "7-11-0123456789abcdef", userId: 11 },
        { reservationId: "7-12-0123456789abcdef-3", userId: 12 },
      ],
      deadline,
    );
    // The stock bucket comes from the reservation id (bucket 3's ids end in -3).
    expect(parameters).toEqual([
      "7-11-0123456789abcdef",
      0,
      11,
      7,
      3,
      500,
      deadline,
      "7-12-0123456789abcdef-3",
      3,
      12,
      7,
      3,
      500,
      deadline,
    ]);
    expect(parameters).toHaveLength((orderInsertSql(2).match(/\?/g) ?? []).length);
  });
});
