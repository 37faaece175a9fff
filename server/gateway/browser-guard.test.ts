import { describe, expect, it } from "vitest";
import { browserRequestRefusal, carriesSessionCookie, fromThisSite } from "./browser-guard";

const SITE = "https://shop.example";
const refusal = (method: string, headers: Record<string, string>) => browserRequestRefusal({ method, headers: new Headers(headers) }, SITE);
const json = { "content-type": "application/json" };
const cookie = { cookie: "lang=en; fs_session=a.b.c" };

describe("browserRequestRefusal: cross-site cookie mutations", () => {
  it("lets reads through whatever they carry", () => {
    for (const method of ["GET", "HEAD", "OPTIONS", "get"])
      expect(refusal(method, { ...cookie, origin: "https://evil.example", "content-type": "text/plain" })).toBeNull();
  });

  it("lets a mutation with the cookie through from this site: PUBLIC_BASE_URL's origin or the request's own host", () => {
    expect(refusal("POST", { ...json, ...cookie, origin: SITE })).toBeNull();
    expect(refusal("POST", { ...json, ...cookie, origin: "http://localhost:3000", host: "localhost:3000" })).toBeNull();
    expect(
      refusal("POST", { ...json, ...cookie, origin: "https://shop.internal", host: "shop.internal", "x-forwarded-proto": "https" }),
    ).toBeNull();
    expect(refusal("POST", { ...json, ...cookie, "sec-fetch-site": "same-origin" })).toBeNull();
    expect(refusal("POST", { ...json, ...cookie, referer: `${SITE}/sales/7` })).toBeNull();
  });

  it("refuses one from anywhere else, or from nowhere it will say", () => {
    const cases: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "null" }, // a sandboxed frame, a data: page
      { origin: "https://shop.example.evil.example" },
      { origin: "http://shop.example" }, // the site's origin is https
      { origin: "https://localhost:3000", host: "localhost:3000" }, // scheme differs from the request's
      { origin: "http://localhost:3001", host: "localhost:3000" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { referer: "https://evil.example/shop.example" },
      { referer: "not a url" },
      {}, // no Origin, no Sec-Fetch-Site, no Referer: nothing shows it came from here
    ];
    for (const headers of cases) {
      expect(refusal("POST", { ...json, ...cookie, ...headers }), JSON.stringify(headers)).toMatchObject({
        status: 403,
        code: "FORBIDDEN",
      });
    }
    expect(refusal("DELETE", { ...cookie, origin: "https://evil.example" })).toMatchObject({ status: 403 });
  });

  it("a malformed session cookie counts as one; other cookies do not", () => {
    expect(refusal("POST", { ...json, cookie: "fs_session=%", origin: "https://evil.example" })).toMatchObject({ status: 403 });
    expect(refusal("POST", { ...json, cookie: "not_fs_session=x; lang=zh", origin: "https://evil.example" })).toBeNull();
    expect(carriesSessionCookie(new Headers({ cookie: "a=1;fs_session=" }))).toBe(true);
    expect(carriesSessionCookie(new Headers({ cookie: "xfs_session=1" }))).toBe(false);
  });

  it("needs no Origin from a Bearer client (a page elsewhere cannot send our token)", () => {
    expect(refusal("POST", { ...json, authorization: "Bearer t", ...cookie })).toBeNull();
    expect(refusal("POST", { ...json, authorization: "Basic dTpw", ...cookie, origin: "https://evil.example" })).toMatchObject({
      status: 403,
    });
  });

  it("takes Sec-Fetch-Site over the Referer, and the Origin over both", () => {
    expect(fromThisSite(new Headers({ "sec-fetch-site": "cross-site", referer: `${SITE}/` }), SITE)).toBe(false);
    expect(fromThisSite(new Headers({ origin: "https://evil.example", "sec-fetch-site": "same-origin" }), SITE)).toBe(false);
  });
});

describe("browserRequestRefusal: bodies", () => {
  it("takes JSON (with parameters, in any case) and bodiless mutations", () => {
    expect(refusal("POST", { "content-type": "application/json" })).toBeNull();
    expect(refusal("POST", { "content-type": "Application/JSON; charset=utf-8" })).toBeNull();
    expect(refusal("PUT", {})).toBeNull();
    expect(refusal("PUT", { "content-length": "0" })).toBeNull();
  });

  it("refuses form, text and other bodies with 415, and a body without a type", () => {
    for (const type of [
      "multipart/form-data; boundary=x",
      "application/x-www-form-urlencoded",
      "text/plain",
      "text/plain; charset=utf-8",
      "application/octet-stream",
      "application/jsonp",
      "application/json-seq",
      "",
    ]) {
      expect(refusal("POST", { "content-type": type, authorization: "Bearer t" }), type).toMatchObject({
        status: 415,
        code: "UNSUPPORTED_MEDIA_TYPE",
      });
    }
    expect(refusal("POST", { "content-length": "12" })).toMatchObject({ status: 415 });
    expect(refusal("POST", { "transfer-encoding": "chunked" })).toMatchObject({ status: 415 });
    expect(refusal("POST", { "content-type": "text/plain" })?.text.en).toContain("application/json");
    expect(refusal("POST", { "content-type": "text/plain" })?.text.zh).toContain("JSON");
  });
});
