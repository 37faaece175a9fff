"use client";
import type { ReactNode } from "react";
import { ConfigProvider } from "antd";
import enUS from "antd/locale/en_US";
import zhCN from "antd/locale/zh_CN";
import { useLang } from "@/app/_i18n/client";

/**
 * Ant Design for the console only: its own words (pagination, empty tables, pickers) follow the
 * page's language. Lives under app/admin so no shop page's bundle ever pulls antd in.
 */
export function AntdProvider({ children }: { children: ReactNode }) {
  const lang = useLang();
  return (
    // No space forced into two-character Chinese buttons ("搜 索"): the words read as written.
    <ConfigProvider locale={lang === "zh" ? zhCN : enUS} button={{ autoInsertSpace: false }} theme={{ token: { colorPrimary: "#1d4ed8", borderRadius: 6 } }}>
      {children}
    </ConfigProvider>
  );
}
