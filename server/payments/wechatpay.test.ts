import { createCipheriv, createSign, generateKeyPairSync, randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { PaymentProvider } from "./provider";
import {
  authorizationHeader,
  decryptResource,
  parseFen,
  parseWechatTime,
  requestSignString,
  responseSignString,
  toWechatTime,
  truncateUtf8,
  wechatPayProvider,
  type WechatPayConfig,
} from "./wechatpay";

describe("the request sign string (WeChat Pay's published 签名生成 example)", () => {
  it("GET /v3/certificates at 1554208460 with nonce 593BEC0C…: five lines, each ending in \\n, the empty body too", () => {
    const signString = requestSignString("GET", "/v3/certificates", "1554208460", "593BEC0C930BF1AFEB40B4A08C8FB242", "");
    expect(Buffer.from(signString, "utf8")).toEqual(
      Buffer.from("GET\n/v3/certificates\n1554208460\n593BEC0C930BF1AFEB40B4A08C8FB242\n\n", "utf8"),
    );
  });

  it("the URL keeps its query; a POST signs the exact JSON sent", () => {
    expect(requestSignString("GET", "/v3/pay/transactions/out-trade-no/abc?mchid=1900009191", "1", "N", "")).toBe(
      "GET\n/v3/pay/transactions/out-trade-no/abc?mchid=1900009191\n1\nN\n\n",
    );
    expect(requestSignString("POST", "/v3/refund/domestic/refunds", "1", "N", '{"a":1}')).toBe(
      'POST\n/v3/refund/domestic/refunds\n1\nN\n{"a":1}\n',
    );
  });

  it("answers and notifies are signed over timestamp, nonce and body, each line ending in \\n", () => {
    expect(responseSignString("1554209980", "c5ac7061fccab6bf3e254dcf98995b8c", '{"data":[]}')).toBe(
      '1554209980\nc5ac7061fccab6bf3e254dcf98995b8c\n{"data":[]}\n',
    );
  });

  it("the Authorization header has the documented layout", () => {
    // The docs' example header, with the signature shortened (it is WeChat's key's, not reproducible).
    expect(
      authorizationHeader({
        mchId: "1900009191",
        nonce: "593BEC0C930BF1AFEB40B4A08C8FB242",
        signature:
          "uOVRnA4qG/MNnYzdQxJanN+zU+lTgIcnU9BxGw5dKjK+VdEUz2FeIoC+D5sB/LN+nGzX3hfZg6r5wT1pl2ZobmIc6p0ldN7J6yDgUzbX8Uk3sD4a4eZVPTBvqNDoUqcYMlZ9uuDdCvNv4TM3c1WzsXUrExwVkI1XO5jCNbgDJ25nkT/c1gIFvqoogl7MdSFGc4W4xZsqCItnqbypR3RuGIlR9h9vlRsy7zJR9PBI83X8alLDIfR1ukt1P7tMnmogZ0cuDY8cZsd8ZlCgLadmvej58SLsIkVxFJ8Xy==",
        timestamp: "1554208460",
        serialNo: "1DDE55AD98ED71D6EDD4A4A16996DE7B47773A8C",
      }),
    ).toBe(
      'WECHATPAY2-SHA256-RSA2048 mchid="1900009191",nonce_str="593BEC0C930BF1AFEB40B4A08C8FB242",' +
        'signature="uOVRnA4qG/MNnYzdQxJanN+zU+lTgIcnU9BxGw5dKjK+VdEUz2FeIoC+D5sB/LN+nGzX3hfZg6r5wT1pl2ZobmIc6p0ldN7J6yDgUzbX8Uk3sD4a4eZVPTBvqNDoUqcYMlZ9uuDdCvNv4TM3c1WzsXUrExwVkI1XO5jCNbgDJ25nkT/c1gIFvqoogl7MdSFGc4W4xZsqCItnqbypR3RuGIlR9h9vlRsy7zJR9PBI83X8alLDIfR1ukt1P7tMnmogZ0cuDY8cZsd8ZlCgLadmvej58SLsIkVxFJ8Xy==",' +
        'timestamp="1554208460",serial_no="1DDE55AD98ED71D6EDD4A4A16996DE7B47773A8C"',
    );
  });
});

describe("AES-256-GCM resource decryption", () => {
  const apiV3Key = "Lanterns0123456789abcdefghijklmn";
  // Made once with node:crypto: key above, nonce "fixednonce12", associated data "transaction".
  const vector = {
    algorithm: "AEAD_AES_256_GCM",
    nonce: "fixednonce12",
    associated_data: "transaction",
    ciphertext: "xsFMTHs+nDtgTiiD0UgOBz/EljWJxAH2yXPAZqyDoH8U84Sc0AQ9daAMkcIWDsN+yLPawKZTx0nFh2xOB889YdY=",
  };

  it("decrypts a known vector", () => {
    expect(decryptResource(vector, apiV3Key)).toBe('{"trade_state":"SUCCESS","amount":{"total":9900}}');
  });

  it("refuses a changed ciphertext, associated data or key (the tag does not authenticate)", () => {
    const flipped = Buffer.from(vector.ciphertext, "base64");
    flipped[3]! ^= 1;
    expect(() => decryptResource({ ...vector, ciphertext: flipped.toString("base64") }, apiV3Key)).toThrow();
    expect(() => decryptResource({ ...vector, associated_data: "refund" }, apiV3Key)).toThrow();
    expect(() => decryptResource(vector, "Lanterns0123456789abcdefghijklmX")).toThrow();
  });

  it("refuses another algorithm and a key that is not 32 bytes", () => {
    expect(() => decryptResource({ ...vector, algorithm: "AEAD_AES_128_GCM" }, apiV3Key)).toThrow(/unsupported algorithm/);
    expect(() => decryptResource(vector, "short")).toThrow(/32 bytes/);
  });
});

describe("times, amounts and text", () => {
  it("writes time_expire in Beijing time, RFC 3339", () => {
    expect(toWechatTime(new Date("2026-12-02T10:30:00.000Z"))).toBe("2026-12-02T18:30:00+08:00");
    expect(toWechatTime(new Date("2026-12-31T20:00:59.900Z"))).toBe("2027-01-01T04:00:59+08:00");
  });

  it("reads WeChat's RFC 3339 times and nothing else", () => {
    expect(parseWechatTime("2015-05-20T13:29:35+08:00")?.toISOString()).toBe("2015-05-20T05:29:35.000Z");
    expect(parseWechatTime("2015-05-20T05:29:35.120Z")?.toISOString()).toBe("2015-05-20T05:29:35.120Z");
    for (const bad of ["2015-05-20 13:29:35", "2015-05-20T13:29:35", "2015-13-45T10:00:00+08:00", "", 1432099775, null]) {
      expect(parseWechatTime(bad)).toBeNull();
    }
  });

  it("amounts are integer fen only", () => {
    expect(parseFen(9900)).toBe(9900);
    expect(parseFen(0)).toBe(0);
    for (const bad of [99.5, "9900", -1, Number.NaN, 2 ** 60, null, undefined]) expect(parseFen(bad)).toBeNull();
  });

  it("cuts the description to 127 UTF-8 bytes, never inside a character", () => {
    expect(truncateUtf8("灯".repeat(60), 127)).toBe("灯".repeat(42));
    expect(truncateUtf8("a".repeat(126) + "😀", 127)).toBe("a".repeat(126));
    expect(truncateUtf8("秒杀 lantern", 127)).toBe("秒杀 lantern");
  });
});

describe("verifyNotification", () => {
  const platform = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const merchant = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const config: WechatPayConfig = {
    mchId: "1900009191",
    appId: "wxd678efh567hg6787",
    serialNo: "1DDE55AD98ED71D6EDD4A4A16996DE7B47773A8C",
    privateKey: merchant.privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    apiV3Key: "Lanterns0123456789abcdefghijklmn",
    platformPublicKey: platform.publicKey.export({ type: "spki", format: "pem" }).toString(),
    platformPublicKeyId: "PUB_KEY_ID_0119000091912025010100000000000001",
    baseUrl: "http://127.0.0.1:9",
  };
  let adapter: PaymentProvider;
  beforeAll(() => {
    adapter = wechatPayProvider(config);
  });

  const paidTransaction = {
    appid: config.appId,
    mchid: config.mchId,
    out_trade_no: "0123456789abcdef0123456789abcdef",
    transaction_id: "4200000000202612020000000001",
    trade_type: "NATIVE",
    trade_state: "SUCCESS",
    success_time: "2026-12-02T18:01:02+08:00",
    amount: { total: 9900, payer_total: 9900, currency: "CNY", payer_currency: "CNY" },
  };

  function encrypted(resource: unknown, key = config.apiV3Key, associatedData = "transaction") {
    const nonce = randomBytes(6).toString("hex");
    const cipher = createCipheriv("aes-256-gcm", Buffer.from(key), Buffer.from(nonce)).setAAD(Buffer.from(associatedData));
    const plaintext = typeof resource === "string" ? resource : JSON.stringify(resource);
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]).toString("base64");
    return { original_type: associatedData, algorithm: "AEAD_AES_256_GCM", ciphertext, associated_data: associatedData, nonce };
  }

  function notify(
    fields: Record<string, unknown>,
    options: { timestamp?: number; serial?: string; signBody?: string; omit?: string } = {},
  ) {
    const body = JSON.stringify({
      id: "EV-2018022511223320873",
      create_time: "2026-12-02T18:01:03+08:00",
      resource_type: "encrypt-resource",
      event_type: "TRANSACTION.SUCCESS",
      summary: "支付成功",
      ...fields,
    });
    const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
    const nonce = "fJdLKiD2qHn7VkIK4BvW1d3w1X8N1Vzw";
    const signature = createSign("RSA-SHA256")
      .update(`${timestamp}\n${nonce}\n${options.signBody ?? body}\n`)
      .sign(platform.privateKey, "base64");
    const headers = new Headers({
      "Wechatpay-Timestamp": timestamp,
      "Wechatpay-Nonce": nonce,
      "Wechatpay-Signature": signature,
      "Wechatpay-Serial": options.serial ?? config.platformPublicKeyId,
    });
    if (options.omit) headers.delete(options.omit);
    return { body, headers };
  }

  const verdictOf = (fields: Record<string, unknown>, options?: Parameters<typeof notify>[1]) =>
    adapter.verifyNotification(notify(fields, options));

  it("a paid notify becomes a paid event", () => {
    expect(verdictOf({ resource: encrypted(paidTransaction) })).toEqual({
      ok: true,
      event: {
        kind: "paid",
        notifyId: "EV-2018022511223320873",
        sentAt: new Date("2026-12-02T10:01:03Z"),
        outTradeNo: paidTransaction.out_trade_no,
        providerTradeNo: paidTransaction.transaction_id,
        amountCents: 9900,
      },
    });
  });

  it.each([
    ["a missing signature header", {}, { omit: "Wechatpay-Signature" }, /headers are missing/],
    ["another key id", {}, { serial: "PUB_KEY_ID_0000" }, /not the configured WeChat Pay public key/],
    ["a signature 10 minutes old", {}, { timestamp: Math.floor(Date.now() / 1000) - 600 }, /minutes from now/],
    ["a body changed after signing", {}, { signBody: "{}" }, /does not verify/],
  ])("refuses %s", (_what, fields, options, reason) => {
    expect(verdictOf({ resource: encrypted(paidTransaction), ...fields }, options)).toEqual({
      ok: false,
      reason: expect.stringMatching(reason),
    });
  });

  it.each([
    ["no resource", { resource: undefined }, /resource is missing/],
    ["a resource under another key", { resource: encrypted(paidTransaction, "Xanterns0123456789abcdefghijklmn") }, /does not decrypt/],
    ["a resource that is not JSON", { resource: encrypted("not json") }, /decrypted resource is not a JSON object/],
    ["a malformed create_time", { create_time: "yesterday", resource: encrypted(paidTransaction) }, /create_time/],
    ["a missing id", { id: undefined, resource: encrypted(paidTransaction) }, /notify id/],
    ["trade_state NOTPAY", { resource: encrypted({ ...paidTransaction, trade_state: "NOTPAY" }) }, /trade_state NOTPAY/],
    ["another app", { resource: encrypted({ ...paidTransaction, appid: "wx0000000000000000" }) }, /app wx0000000000000000/],
    ["another merchant", { resource: encrypted({ ...paidTransaction, mchid: "1230000109" }) }, /merchant 1230000109/],
    [
      "an amount in yuan",
      { resource: encrypted({ ...paidTransaction, amount: { total: "99.00", currency: "CNY" } }) },
      /integer number of fen/,
    ],
    [
      "a fractional amount",
      { resource: encrypted({ ...paidTransaction, amount: { total: 99.5, currency: "CNY" } }) },
      /integer number of fen/,
    ],
    ["another currency", { resource: encrypted({ ...paidTransaction, amount: { total: 9900, currency: "USD" } }) }, /USD is not CNY/],
    ["no transaction_id", { resource: encrypted({ ...paidTransaction, transaction_id: undefined }) }, /transaction_id/],
  ])("refuses a signed notify with %s", (_what, fields, reason) => {
    expect(verdictOf(fields)).toEqual({ ok: false, reason: expect.stringMatching(reason) });
  });

  it("refuses a body that is not JSON", () => {
    const { headers } = notify({});
    const body = "not json";
    const timestamp = headers.get("wechatpay-timestamp")!;
    const nonce = headers.get("wechatpay-nonce")!;
    headers.set(
      "Wechatpay-Signature",
      createSign("RSA-SHA256").update(`${timestamp}\n${nonce}\n${body}\n`).sign(platform.privateKey, "base64"),
    );
    expect(adapter.verifyNotification({ body, headers })).toEqual({ ok: false, reason: "the body is not JSON" });
  });

  it("ignores other authentic events", () => {
    expect(verdictOf({ event_type: "MCHTRANSFER.BILL.FINISHED", resource: encrypted({}) })).toEqual({
      ok: true,
      event: { kind: "ignored", reason: "event MCHTRANSFER.BILL.FINISHED" },
    });
  });

  describe("refund notifies", () => {
    const refund = {
      mchid: config.mchId,
      out_trade_no: paidTransaction.out_trade_no,
      transaction_id: paidTransaction.transaction_id,
      out_refund_no: "R0123456789abcdef",
      refund_id: "50000000382019052709732678859",
      refund_status: "SUCCESS",
      success_time: "2026-12-03T10:00:00+08:00",
      user_received_account: "支付用户零钱",
      amount: { total: 9900, refund: 9900, payer_total: 9900, payer_refund: 9900 },
    };
    const refundNotify = (event: string, resource: object) =>
      verdictOf({ event_type: event, resource: encrypted(resource, config.apiV3Key, "refund") });

    it("REFUND.SUCCESS → the refund succeeded, with WeChat's refund number", () => {
      expect(refundNotify("REFUND.SUCCESS", refund)).toEqual({
        ok: true,
        event: {
          kind: "refund",
          notifyId: "EV-2018022511223320873",
          sentAt: new Date("2026-12-02T10:01:03Z"),
          outTradeNo: refund.out_trade_no,
          refundNo: refund.out_refund_no,
          result: { state: "SUCCEEDED", providerRefundNo: refund.refund_id },
        },
      });
    });

    it("REFUND.ABNORMAL and REFUND.CLOSED → the refund failed", () => {
      expect(refundNotify("REFUND.ABNORMAL", { ...refund, refund_status: "ABNORMAL" })).toMatchObject({
        ok: true,
        event: { kind: "refund", result: { state: "FAILED", reason: expect.stringMatching(/ABNORMAL/) } },
      });
      expect(refundNotify("REFUND.CLOSED", { ...refund, refund_status: "CLOSED" })).toMatchObject({
        ok: true,
        event: { kind: "refund", result: { state: "FAILED", reason: expect.stringMatching(/CLOSED/) } },
      });
    });

    it("refuses another merchant's refund, a missing out_refund_no and a refund still processing", () => {
      expect(refundNotify("REFUND.SUCCESS", { ...refund, mchid: "1230000109" })).toEqual({
        ok: false,
        reason: expect.stringMatching(/merchant 1230000109/),
      });
      expect(refundNotify("REFUND.SUCCESS", { ...refund, out_refund_no: undefined })).toEqual({
        ok: false,
        reason: expect.stringMatching(/out_refund_no/),
      });
      expect(refundNotify("REFUND.SUCCESS", { ...refund, refund_status: "PROCESSING" })).toEqual({
        ok: false,
        reason: expect.stringMatching(/not a final state/),
      });
    });
  });

  it("refuses to start with an APIv3 key that is not 32 bytes or a key that is not PEM", () => {
    expect(() => wechatPayProvider({ ...config, apiV3Key: "too-short" })).toThrow(/32 bytes; this one is 9/);
    expect(() => wechatPayProvider({ ...config, privateKey: "-----BEGIN PRIVATE KEY-----\\nabc" })).toThrow(
      /merchant API private key is not a PEM/,
    );
    expect(() => wechatPayProvider({ ...config, platformPublicKey: "PUB_KEY_ID_01" })).toThrow(/WeChat Pay public key is not a PEM/);
  });

  it("replies 204 with no body when accepted, a FAIL body with 4xx/5xx otherwise (so WeChat retries)", () => {
    expect(adapter.reply("accepted")).toMatchObject({ status: 204, body: "" });
    const rejected = adapter.reply("rejected");
    expect(rejected.status).toBe(400);
    expect(JSON.parse(rejected.body)).toEqual({ code: "FAIL", message: expect.any(String) });
    const error = adapter.reply("error");
    expect(error.status).toBe(500);
    expect(JSON.parse(error.body)).toMatchObject({ code: "FAIL" });
  });
});
