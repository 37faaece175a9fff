import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { Providers } from "./_components/providers";
import "./globals.css";

export const metadata: Metadata = {
  title: "Flash Sale",
  description: "Limited units, one fair queue.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>
          <header className="topbar">
            <a href="/" className="brand">⚡ Flash Sale</a>
            <nav aria-label="Account">
              <a href="/orders">My orders</a>
            </nav>
          </header>
          <main className="page">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
