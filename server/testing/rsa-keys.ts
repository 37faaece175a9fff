import { createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";

/** Keys as a deployment would paste them: generated here, never real ones. */
export const appKeys = generateKeyPairSync("rsa", { modulusLength: 2048 });
export const providerKeys = generateKeyPairSync("rsa", { modulusLength: 2048 });
export const pkcs8 = appKeys.privateKey.export({ type: "pkcs8", format: "pem" }) as string;
export const pkcs1 = appKeys.privateKey.export({ type: "pkcs1", format: "pem" }) as string;
export const spki = providerKeys.publicKey.export({ type: "spki", format: "pem" }) as string;
/** The bare base64 body the providers' key tools print. */
export const bodyOf = (pem: string) => pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
/** Whether a PEM holds the app's private key (whatever form it was given in). */
export const samePrivate = (pem: string | null) =>
  createPrivateKey(pem!)
    .export({ type: "pkcs8", format: "der" })
    .equals(appKeys.privateKey.export({ type: "pkcs8", format: "der" }));
/** Whether a PEM holds the provider's public key. */
export const samePublic = (pem: string | null) =>
  createPublicKey(pem!)
    .export({ type: "spki", format: "der" })
    .equals(providerKeys.publicKey.export({ type: "spki", format: "der" }));

/** Each real provider's variables, complete, keys in the forms a deployment pastes them. */
export const ALIPAY_VARIABLES = {
  ALIPAY_APP_ID: "2021000000000001",
  ALIPAY_PRIVATE_KEY: bodyOf(pkcs1),
  ALIPAY_PUBLIC_KEY: spki.replaceAll("\n", "\\n"),
};
export const WECHATPAY_VARIABLES = {
  WECHATPAY_MCH_ID: "1900000001",
  WECHATPAY_APP_ID: "wx0000000000000001",
  WECHATPAY_SERIAL_NO: "5157F09EFDC096DE15EBE81A47057A7232F1B8E1",
  WECHATPAY_PRIVATE_KEY: pkcs8,
  WECHATPAY_APIV3_KEY: "0123456789abcdef0123456789abcdef",
  WECHATPAY_PLATFORM_PUBLIC_KEY: bodyOf(spki),
  WECHATPAY_PLATFORM_PUBLIC_KEY_ID: "PUB_KEY_ID_0000000000000001",
};
