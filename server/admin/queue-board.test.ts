import { describe, expect, it } from "vitest";
import { boardAccessRefusal, boardPageHtml, isAllowedBoardRequest, withBoardLocale, withConsoleLink, withoutCdnFonts } from "./queue-board";

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
    expect(withoutCdnFonts(page)).toBe(
      `<head><link rel="icon" href="static/favicon.ico">\n    \n<link href="static/css/main.css" rel="stylesheet"></head>`,
    );
  });
});

describe("the board's page as this site serves it", () => {
  const page = `<head><link rel="preconnect" href="//fonts.gstatic.com"><link href="https://fonts.googleapis.com/css2?family=IBM+Plex+Sans" rel="stylesheet"></head><body><script id="__UI_CONFIG__" type="application/json">{"boardTitle":"Flash sale queues","hideDocsLink":true}</script></body>`;

  it("loads nothing from another host", () => {
    expect(boardPageHtml(page, "en")).not.toMatch(/(?:https?:)?\/\/[a-z]/i);
  });

  it("sets bull-board's own language from the visitor's", () => {
    const zh = withBoardLocale(page, "zh");
    const config = JSON.parse(/__UI_CONFIG__" type="application\/json">([^<]*)</.exec(zh)![1]!) as Record<string, unknown>;
    expect(config).toEqual({ boardTitle: "Flash sale queues", hideDocsLink: true, locale: { lng: "zh-CN" } });
    expect(withBoardLocale(page, "en")).toContain('"locale":{"lng":"en-US"}');
  });

  it("links back to the admin console, in the visitor's language", () => {
    expect(withConsoleLink(page, "en")).toMatch(/<a href="\/admin"[^>]*>← Admin console<\/a><\/body>/);
    expect(withConsoleLink(page, "zh")).toContain(">← 返回管理后台</a>");
  });
});

describe("boardAccessRefusal", () => {
  const get = (headers: Record<string, string> = {}) => new Request("http://127.0.0.1:39017/admin/queues", { headers });

  it("sends a signed-out visitor to the console's sign-in with a relative Location, never an internal port", () => {
    const answer = boardAccessRefusal(null, get())!;
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("/admin");
  });

  it("shows a shopper a 403 page in their language, utf-8, with a link home", async () => {
    const answer = boardAccessRefusal({ role: "SHOPPER" }, get({ "accept-language": "zh-CN,zh;q=0.9" }))!;
    expect(answer.status).toBe(403);
    expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await answer.text();
    expect(html).toContain("此页面仅供商店管理员使用");
    expect(html).toContain('<a href="/">返回商店</a>');
    expect(await boardAccessRefusal({ role: "SHOPPER" }, get())!.text()).toContain("This page is for the shop&#39;s admins");
  });

  it("answers the board's API calls in JSON, and lets an admin through", async () => {
    const put = (session: { role: string } | null) =>
      boardAccessRefusal(session, new Request("http://x/admin/queues/api/queues/create-order/retry/failed", { method: "PUT" }));
    expect(put(null)!.status).toBe(401);
    expect(put({ role: "SHOPPER" })!.status).toBe(403);
    expect(((await put({ role: "SHOPPER" })!.json()) as { error: { code: string } }).error.code).toBe("FORBIDDEN");
    expect(boardAccessRefusal({ role: "ADMIN" }, get())).toBeNull();
  });
});
