import { describe, expect, it } from "vitest";
import { payDevice } from "./pay-device";

const DESKTOP_CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";
const IPHONE_SAFARI =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1";
const ANDROID_WECHAT =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36 MicroMessenger/8.0.47";
// iPadOS Safari asks for the desktop site, so it reads like a Mac.
const IPAD_SAFARI = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15";

describe("payDevice", () => {
  it("sends a desktop browser to the desktop flows, even in a narrow window", () => {
    expect(payDevice({ userAgent: DESKTOP_CHROME, coarsePointer: false, screenShortSide: 1080 })).toBe("desktop");
    expect(payDevice({ userAgent: DESKTOP_CHROME, coarsePointer: false, screenShortSide: 400 })).toBe("desktop");
  });

  it("sends a mobile User-Agent to the phone flows, whatever its screen says", () => {
    expect(payDevice({ userAgent: IPHONE_SAFARI, coarsePointer: true, screenShortSide: 390 })).toBe("phone");
    expect(payDevice({ userAgent: ANDROID_WECHAT, coarsePointer: false, screenShortSide: 0 })).toBe("phone");
  });

  it("counts a phone-sized touch screen as a phone when the browser asks for the desktop site", () => {
    expect(payDevice({ userAgent: DESKTOP_CHROME, coarsePointer: true, screenShortSide: 412 })).toBe("phone");
    expect(payDevice({ userAgent: DESKTOP_CHROME, coarsePointer: true, screenShortSide: 600 })).toBe("phone");
  });

  it("keeps tablets and touch laptops on the desktop flows (a QR code they can show to a phone)", () => {
    expect(payDevice({ userAgent: IPAD_SAFARI, coarsePointer: true, screenShortSide: 820 })).toBe("desktop");
    expect(payDevice({ userAgent: DESKTOP_CHROME, coarsePointer: true, screenShortSide: 601 })).toBe("desktop");
    expect(payDevice({ userAgent: DESKTOP_CHROME, coarsePointer: true, screenShortSide: 0 })).toBe("desktop");
  });
});
