import { describe, expect, it } from "vitest";
import { readResults } from "./result-watch";

describe("readResults: one look at a bucket's waited-for reservations", () => {
  it("an order id settles it, a pending entry keeps it queued, neither leaves it to MySQL", () => {
    const ids = ["1-7-0-a", "1-8-0-b", "1-9-0-c"];
    const { settled, unknown } = readResults(ids, ["42", null, null], [null, "1764000000000", null]);
    expect([...settled]).toEqual([["1-7-0-a", { status: "ORDER_CREATED", orderId: 42 }]]);
    expect(unknown).toEqual(["1-9-0-c"]);
  });

  it("an order id wins over a pending entry read beside it (the worker's MULTI fell between)", () => {
    const { settled, unknown } = readResults(["1-7-0-a"], ["5"], ["1764000000000"]);
    expect(settled.get("1-7-0-a")).toEqual({ status: "ORDER_CREATED", orderId: 5 });
    expect(unknown).toEqual([]);
  });
});
