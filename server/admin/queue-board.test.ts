import { describe, expect, it } from "vitest";
import { isAllowedBoardRequest, withoutCdnFonts } from "./queue-board";

describe("isAllowedBoardRequest", () => {
  it("lets the board show everything", () => {
    for (const path of ["/", "/api/queues", "/api/queues/cancel-order/cancel-1-2-2", "/static/js/main.js", "/queue/create-order"]) {
      expect(isAllowedBoardRequest("GET", path), path).toBe(true);
    }
  });

  it("lets an operator retry failed create-order, payment-notify and refund-payment jobs, with the data they failed with", () => {
    expect(isAllowedBoardRequest("PUT", "/api/queues/create-order/retry/failed")).toBe(true);
    expect(isAllowedBoardRequest("PUT", "/api/queues/payment-notify/retry/failed")).toBe(true);
    expect(isAllowedBoardRequest("PUT", "/api/queues/refund-payment/retry/failed")).toBe(true);
    expect(isAllowedBoardRequest("PUT", "/api/queues/payment-notify/notify-7/retry")).toBe(true);
  });

  it("refuses every action that would change the queues behind the domain's back", () => {
    const refused: [string, string][] = [
      ["POST", "/api/queues/create-order/add"], // orders that never passed Redis
      ["POST", "/api/queues/payment-notify/add"], // notifications nobody paid for
      ["PATCH", "/api/queues/create-order/order-1-2-3/update-data"], // a retry with edited data
      ["PUT", "/api/queues/cancel-order/promote"], // every pay-deadline timer at once
      ["PUT", "/api/queues/cancel-order/cancel-1-2-2/promote"],
      ["PUT", "/api/queues/cancel-order/retry/failed"], // timers run from their own queue's rules
      ["PUT", "/api/queues/create-order/retry/completed"],
      ["PUT", "/api/queues/create-order/clean/completed"],
      ["PUT", "/api/queues/create-order/order-1/clean"],
      ["PUT", "/api/queues/create-order/empty"],
      ["PUT", "/api/queues/create-order/obliterate"],
      ["PUT", "/api/queues/pause"],
      ["PUT", "/api/queues/create-order/concurrency"],
      ["PUT", "/api/queues/sweep-orders/job-schedulers/sweep/remove"],
      ["DELETE", "/api/queues/create-order"],
      ["POST", "/api/metrics/history/purge"],
      ["PUT", "/api/queues/create-order%2Fx/retry/failed"],
      ["PUT", "/api/queues/%E0%A4%A/retry/failed"],
    ];
    for (const [method, path] of refused) expect(isAllowedBoardRequest(method, path), `${method} ${path}`).toBe(false);
  });
});

describe("withoutCdnFonts", () => {
  it("drops the Google Fonts stylesheet and nothing else", () => {
    const page = `<head><link rel="icon" href="static/favicon.ico">\n    <link href="https://fonts.googleapis.com/css2?family=IBM+Plex+Sans:wght@400&display=swap" rel="stylesheet">\n<link href="static/css/main.css" rel="stylesheet"></head>`;
    expect(withoutCdnFonts(page)).toBe(`<head><link rel="icon" href="static/favicon.ico">\n    \n<link href="static/css/main.css" rel="stylesheet"></head>`);
  });
});
