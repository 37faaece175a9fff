import { describe, expect, it } from "vitest";
import { PASS_WINDOW_MS, passStanding, readTicket, signTicket } from "./ticket";

const SECRET = "a-test-secret-of-at-least-thirty-two-chars";
const OWNER = { saleId: 3, userId: 42 };
const TICKET = { epoch: 1_699_999_000_000, seq: 17, position: 9, admitAt: 1_700_000_000_000 };

describe("waiting-room tickets", () => {
  it("reads back what was signed, for the same shopper and sale only", () => {
    const text = signTicket(SECRET, OWNER, TICKET);
    expect(readTicket(SECRET, OWNER, text)).toEqual(TICKET);
    expect(readTicket(SECRET, { ...OWNER, userId: 43 }, text)).toBeNull();
    expect(readTicket(SECRET, { ...OWNER, saleId: 4 }, text)).toBeNull();
    expect(readTicket(`${SECRET}x`, OWNER, text)).toBeNull();
  });

  it("refuses a ticket moved up the line or given an earlier moment", () => {
    const [epoch, seq, position, admitAt, mac] = signTicket(SECRET, OWNER, TICKET).split(".");
    expect(readTicket(SECRET, OWNER, [epoch, seq, "1", admitAt, mac].join("."))).toBeNull();
    expect(readTicket(SECRET, OWNER, [epoch, seq, position, String(Number(admitAt) - 1000), mac].join("."))).toBeNull();
    expect(readTicket(SECRET, OWNER, [epoch, seq, position, admitAt].join("."))).toBeNull();
    expect(readTicket(SECRET, OWNER, [seq, position, admitAt, mac].join("."))).toBeNull();
    expect(readTicket(SECRET, OWNER, "garbage")).toBeNull();
    expect(readTicket(SECRET, OWNER, `${epoch}.${"9".repeat(5000)}.1.1.${mac}`)).toBeNull();
  });

  it("binds the ticket to its room's opening: the same seat signed in another opening is another ticket", () => {
    const [epoch, ...rest] = signTicket(SECRET, OWNER, TICKET).split(".");
    // Carried into a later opening by editing the epoch: the MAC no longer matches.
    expect(readTicket(SECRET, OWNER, [String(Number(epoch) + 60_000), ...rest].join("."))).toBeNull();
    const reopened = signTicket(SECRET, OWNER, { ...TICKET, epoch: TICKET.epoch + 60_000 });
    expect(reopened.split(".").at(-1)).not.toBe(rest.at(-1));
    expect(readTicket(SECRET, OWNER, reopened)?.epoch).toBe(TICKET.epoch + 60_000);
  });

  it("is a pass from its moment for the pass window, not before and not after", () => {
    expect(passStanding(TICKET, TICKET.admitAt - 1)).toEqual({ status: "NOT_YET", admitAt: TICKET.admitAt });
    expect(passStanding(TICKET, TICKET.admitAt)).toEqual({ status: "ADMITTED", closesAt: TICKET.admitAt + PASS_WINDOW_MS });
    expect(passStanding(TICKET, TICKET.admitAt + PASS_WINDOW_MS)).toEqual({ status: "EXPIRED" });
    expect(passStanding({ epoch: 0, seq: 1, position: 0, admitAt: 0 }, TICKET.admitAt)).toEqual({ status: "NOT_DRAWN" });
  });
});
