import { describe, expect, it } from "vitest";
import { orderInsertSql, orderRowParameters } from "./order-rows";

describe("order rows for the bare-MySQL baselines", () => {
  it("builds one multi-row INSERT with one placeholder group per row", () => {
    const sql = orderInsertSql(3);
    expect(sql).toMatch(/^INSERT INTO orders \(reservation_id, user_id, sale_id, product_id, amount_cents, status, pay_deadline\) VALUES /);
    expect(sql.match(/'WAIT_PAY'/g)).toHaveLength(3);
    expect(sql.match(/\?/g)).toHaveLength(3 * 6);
    expect(() => orderInsertSql(0)).toThrow();
  });

  it("lays the parameters out row by row in the INSERT's column order", () => {
    const deadline = new Date(0);
    const parameters = orderRowParameters({ saleId: 7, productId: 3, amountCents: 500 }, [
      { reservationId: "r1", userId: 11 },
      { reservationId: "r2", userId: 12 },
    ], deadline);
    expect(parameters).toEqual(["r1", 11, 7, 3, 500, deadline, "r2", 12, 7, 3, 500, deadline]);
    expect(parameters).toHaveLength((orderInsertSql(2).match(/\?/g) ?? []).length);
  });
});
