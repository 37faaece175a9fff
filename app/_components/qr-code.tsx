"use client";
import { toString as qrCodeSvg } from "qrcode";
import { useEffect, useState } from "react";

/**
 * `text` drawn as a QR code, in the browser (the qrcode package, no service asked): an SVG shown
 * as an image, so nothing in it can run. Blank until drawn, at the same size.
 */
export function QrCode({ text, label, size = 220 }: { text: string; label: string; size?: number }) {
  const [drawn, setDrawn] = useState<{ text: string; src: string } | null>(null);
  useEffect(() => {
    let current = true;
    qrCodeSvg(text, { type: "svg", margin: 2, errorCorrectionLevel: "M" }).then(
      (svg) => current && setDrawn({ text, src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}` }),
      () => current && setDrawn(null),
    );
    return () => {
      current = false;
    };
  }, [text]);
  const src = drawn?.text === text ? drawn.src : null;
  return src ? (
    // eslint-disable-next-line @next/next/no-img-element -- a data: URL, nothing for next/image to optimise
    <img className="qr" src={src} alt={label} width={size} height={size} data-testid="qr-code" />
  ) : (
    <div className="qr" style={{ width: size, height: size }} aria-hidden="true" />
  );
}
