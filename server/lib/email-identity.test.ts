import { describe, expect, it } from "vitest";
import { canonicalEmail, DEFAULT_DOTLESS_DOMAINS, parseDotlessDomains } from "./email-identity";

describe("canonicalEmail", () => {
  it("trims and folds case", () => {
    expect(canonicalEmail("  Alice@Example.COM \t\n")).toBe("alice@example.com");
    expect(canonicalEmail("ALICE@EXAMPLE.COM")).toBe(canonicalEmail("alice@example.com"));
  });

  it("removes the plus tag on any domain, and only before the @", () => {
    expect(canonicalEmail("alice+shop@example.com")).toBe("alice@example.com");
    expect(canonicalEmail("alice+a+b@example.com")).toBe("alice@example.com");
    expect(canonicalEmail("alice+@example.com")).toBe("alice@example.com");
    expect(canonicalEmail("alice@ex+ample.com")).toBe("alice@ex+ample.com");
    // A local part that starts with + has no tag to remove: it is all the name there is.
    expect(canonicalEmail("+alice@example.com")).toBe("+alice@example.com");
  });

  it("removes dots of the local part for Gmail only (by default), and reads googlemail.com as gmail.com", () => {
    expect(canonicalEmail("John.Smith@gmail.com")).toBe("johnsmith@gmail.com");
    expect(canonicalEmail("j.o.h.n.s.m.i.t.h+x@GoogleMail.com")).toBe("johnsmith@gmail.com");
    expect(canonicalEmail("john.smith@example.com")).toBe("john.smith@example.com");
    expect(canonicalEmail("john.smith@mail.gmail.com")).toBe("john.smith@mail.gmail.com");
    // A local part of dots alone is kept rather than made empty.
    expect(canonicalEmail("...@gmail.com")).toBe("...@gmail.com");
  });

  it("makes 20 spellings of one Gmail mailbox one identity", () => {
    const spellings = [
      "johnsmith@gmail.com",
      "JohnSmith@gmail.com",
      "john.smith@gmail.com",
      "J.O.H.N.S.M.I.T.H@GMAIL.COM",
      "john.smith+1@gmail.com",
      "johnsmith+sale@googlemail.com",
      "John.Smith+a.b@GoogleMail.Com",
      " johnsmith@gmail.com ",
      "john..smith@gmail.com",
      ".johnsmith@gmail.com",
      "johnsmith.@gmail.com",
      '"john.smith"@gmail.com',
      '"john\\.smith+x"@gmail.com',
      "ｊｏｈｎｓｍｉｔｈ＠ｇｍａｉｌ．ｃｏｍ",
      "johnsmith@gmail.com.",
      "jOhNsMiTh+@gmail.com",
      "john.smith+tag+more@gmail.com",
      "johns.mith@googlemail.com",
      "JOHNSMITH@googlemail.com.",
      "j.ohnsmith+x@GMAIL.com",
    ];
    expect(new Set(spellings).size).toBe(20);
    expect(new Set(spellings.map((email) => canonicalEmail(email)))).toEqual(new Set(["johnsmith@gmail.com"]));
  });

  it("folds Unicode case beyond ASCII, and one composition of each letter", () => {
    expect(canonicalEmail("STRASSE@example.com")).toBe(canonicalEmail("straße@example.com"));
    expect(canonicalEmail("ΟΔΥΣΣΕΥΣ@example.com")).toBe(canonicalEmail("οδυσσευς@example.com"));
    expect(canonicalEmail("οδυσσευσ@example.com")).toBe(canonicalEmail("οδυσσευς@example.com"));
    // é precomposed and e + combining acute are one address; é and e are not.
    expect(canonicalEmail("jos\u00e9@example.com")).toBe(canonicalEmail("jose\u0301@example.com"));
    expect(canonicalEmail("jos\u00e9@example.com")).not.toBe(canonicalEmail("jose@example.com"));
    // The Kelvin sign is a K.
    expect(canonicalEmail("\u212Aate@example.com")).toBe("kate@example.com");
    expect(canonicalEmail("Ünïcödé@Example.com")).toBe("ünïcödé@example.com");
  });

  it("reads an internationalised domain in its xn-- form", () => {
    expect(canonicalEmail("user@BÜCHER.example")).toBe("user@xn--bcher-kva.example");
    expect(canonicalEmail("user@xn--bcher-kva.example")).toBe("user@xn--bcher-kva.example");
  });

  it("unquotes a quoted local part, which may hold an @, before the other rules", () => {
    expect(canonicalEmail('"Alice"@example.com')).toBe("alice@example.com");
    expect(canonicalEmail('"a@b"@example.com')).toBe("a@b@example.com");
    expect(canonicalEmail('"a+tag"@example.com')).toBe("a@example.com");
    expect(canonicalEmail('"a\\"b"@example.com')).toBe('a"b@example.com');
    // One quote is not a quoted local part.
    expect(canonicalEmail('"alice@example.com')).toBe('"alice@example.com');
  });

  it("gives text that is no address back folded, never throws", () => {
    expect(canonicalEmail("")).toBe("");
    expect(canonicalEmail("   ")).toBe("");
    expect(canonicalEmail("No-At-Sign")).toBe("no-at-sign");
    expect(canonicalEmail("@example.com")).toBe("@example.com");
    expect(canonicalEmail("Alice@")).toBe("alice@");
    expect(canonicalEmail("a+b.c")).toBe("a+b.c");
  });

  it("is idempotent", () => {
    for (const email of ["John.Smith+x@GoogleMail.com", '"a@b"@example.com', "STRASSE@BÜCHER.example", "+x@gmail.com"]) {
      expect(canonicalEmail(canonicalEmail(email))).toBe(canonicalEmail(email));
    }
  });

  it("removes dots only for the domains it is given", () => {
    const domains = parseDotlessDomains("example.com");
    expect(canonicalEmail("a.b@example.com", domains)).toBe("ab@example.com");
    expect(canonicalEmail("a.b@gmail.com", domains)).toBe("a.b@gmail.com");
    expect(canonicalEmail("a.b@gmail.com", [])).toBe("a.b@gmail.com");
  });
});

describe("parseDotlessDomains", () => {
  it("reads a comma-separated list in canonical spelling, googlemail.com as gmail.com", () => {
    expect(parseDotlessDomains(" Gmail.com , googlemail.com,,Example.ORG. ")).toEqual(["gmail.com", "example.org"]);
    expect(parseDotlessDomains("")).toEqual([]);
    expect(parseDotlessDomains(DEFAULT_DOTLESS_DOMAINS.join(","))).toEqual(["gmail.com"]);
  });
});
