import { describe, expect, it } from "vitest";
import { addressFromFrontDoor, clientAddress, clientScheme, forwardedHeaders, normalisedAddress, rateLimitKey } from "./client-ip";

const PEER = "10.0.0.7";

describe("clientAddress", () => {
  it("with no trusted hop, is the socket's peer, whatever the client wrote", () => {
    expect(clientAddress(null, PEER, 0)).toBe(PEER);
    expect(clientAddress("6.6.6.6", PEER, 0)).toBe(PEER);
    expect(clientAddress("6.6.6.6, 7.7.7.7", PEER, 0)).toBe(PEER);
  });

  it("with one trusted hop, is the entry that proxy appended, never one further left", () => {
    expect(clientAddress("203.0.113.9", PEER, 1)).toBe("203.0.113.9");
    expect(clientAddress("6.6.6.6, 203.0.113.9", PEER, 1)).toBe("203.0.113.9");
    expect(clientAddress("6.6.6.6,5.5.5.5,203.0.113.9", PEER, 1)).toBe("203.0.113.9");
  });

  it("with two trusted hops, steps over both", () => {
    expect(clientAddress("6.6.6.6, 203.0.113.9, 10.0.0.2", PEER, 2)).toBe("203.0.113.9");
    expect(clientAddress("203.0.113.9, 10.0.0.2", PEER, 2)).toBe("203.0.113.9");
  });

  it("on a chain shorter than the trusted hops, takes its leftmost entry: every one there came from a trusted hop", () => {
    expect(clientAddress("10.0.0.2", PEER, 2)).toBe("10.0.0.2");
    expect(clientAddress(null, PEER, 2)).toBe(PEER);
    expect(clientAddress("", PEER, 1)).toBe(PEER);
  });

  it("passes over a garbage entry to the right, to the proxy that wrote it, never to the left", () => {
    expect(clientAddress("6.6.6.6, unknown", PEER, 1)).toBe(PEER);
    expect(clientAddress("6.6.6.6, <script>, 10.0.0.2", PEER, 2)).toBe("10.0.0.2");
    expect(clientAddress("6.6.6.6, , 10.0.0.2", PEER, 2)).toBe("10.0.0.2");
    expect(clientAddress("1.2.3.999", PEER, 1)).toBe(PEER);
  });

  it("is unknown when even the socket has no address", () => {
    expect(clientAddress("6.6.6.6", undefined, 0)).toBe("unknown");
  });

  it("reads IPv6, with or without brackets and ports, and an IPv4-mapped peer as IPv4", () => {
    expect(clientAddress("2001:DB8:0:0::1", PEER, 1)).toBe("2001:db8::1");
    expect(clientAddress("[2001:db8::1]:4711", PEER, 1)).toBe("2001:db8::1");
    expect(clientAddress("203.0.113.9:4711", PEER, 1)).toBe("203.0.113.9");
    expect(clientAddress(null, "::ffff:127.0.0.2", 0)).toBe("127.0.0.2");
    expect(clientAddress(null, "::1", 0)).toBe("::1");
    expect(clientAddress("fe80::1%eth0", PEER, 1)).toBe("fe80::1");
  });
});

describe("normalisedAddress", () => {
  it("gives one spelling per address and null for anything else", () => {
    expect(normalisedAddress(" 127.0.0.1 ")).toBe("127.0.0.1");
    expect(normalisedAddress("2001:0db8:0000:0000:0000:0000:0000:0001")).toBe("2001:db8::1");
    expect(normalisedAddress("::FFFF:7f00:2")).toBe("127.0.0.2");
    for (const garbage of ["", "unknown", "localhost", "1.2.3", "1.2.3.4.5", "[1.2.3.4", "_hidden", "::g"])
      expect(normalisedAddress(garbage)).toBeNull();
  });
});

describe("rateLimitKey", () => {
  it("counts an IPv4 address alone and an IPv6 address by its /64", () => {
    expect(rateLimitKey("203.0.113.9")).toBe("203.0.113.9");
    expect(rateLimitKey("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(rateLimitKey("2001:db8:1:2::99")).toBe("2001:db8:1:2::/64");
    expect(rateLimitKey("2001:db8::1")).toBe("2001:db8::/64");
    expect(rateLimitKey("::1")).toBe("::/64");
    expect(rateLimitKey("unknown")).toBe("unknown");
  });
});

describe("clientScheme", () => {
  it("follows the same trust rule as the address", () => {
    expect(clientScheme("https", "http", 0)).toBe("http");
    expect(clientScheme("https", "http", 1)).toBe("https");
    expect(clientScheme("http, https", "http", 1)).toBe("https");
    expect(clientScheme("https, http", "http", 1)).toBe("http");
    expect(clientScheme("javascript", "http", 1)).toBe("http");
    expect(clientScheme(null, "https", 2)).toBe("https");
  });
});

describe("forwardedHeaders and addressFromFrontDoor", () => {
  it("a front door hands on exactly the client's address and scheme, which the code behind it reads back", () => {
    const handedOn = forwardedHeaders(
      { "x-forwarded-for": "6.6.6.6, 203.0.113.9", "x-forwarded-proto": "https" },
      { remoteAddress: "::ffff:10.0.0.2" },
      1,
    );
    expect(handedOn).toEqual({ "x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https" });
    expect(addressFromFrontDoor(new Headers({ ...handedOn }))).toBe("203.0.113.9");
    expect(forwardedHeaders({ "x-forwarded-for": ["6.6.6.6", "7.7.7.7"] }, { remoteAddress: "10.0.0.2" }, 1)["x-forwarded-for"]).toBe(
      "7.7.7.7",
    );
    expect(forwardedHeaders({}, { remoteAddress: "10.0.0.2", encrypted: true }, 0)["x-forwarded-proto"]).toBe("https");
  });

  it("behind no front door, reads the last entry, and unknown for none or garbage", () => {
    expect(addressFromFrontDoor(new Headers({ "x-forwarded-for": "6.6.6.6, 127.0.0.1" }))).toBe("127.0.0.1");
    expect(addressFromFrontDoor(new Headers())).toBe("unknown");
    expect(addressFromFrontDoor(new Headers({ "x-forwarded-for": "nope" }))).toBe("unknown");
  });
});
