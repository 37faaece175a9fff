"use client";
import type { ReactNode } from "react";
import { ConfigProvider } from "antd";
import enUS from "antd/locale/en_US";
import zhCN from "antd/locale/zh_CN";
import { useLang } from "@/app/_i18n/client";

// Secondary and description text darker than antd's 45 % black, which fails WCAG AA contrast
// on white (axe: color-contrast) in Statistic titles, table hints and secondary text; links in
// the shop's blue, not antd's lighter info blue (4.0:1).
const THEME = {
  token: {
    colorPrimary: "#1d4ed8",
    colorLink: "#1d4ed8",
    colorInfo: "#1d4ed8",
    borderRadius: 6,
    colorTextSecondary: "rgba(0, 0, 0, 0.68)",
    colorTextDescription: "rgba(0, 0, 0, 0.68)",
    colorTextTertiary: "rgba(0, 0, 0, 0.62)",
  },
};

/**
 * Ant Design for the console only: its own words (pagination, empty tables, pickers) follow the
 * page's language. Lives under app/admin so no shop page's bundle ever pulls antd in.
 */
export function AntdProvider({ children }: { children: ReactNode }) {
  const lang = useLang();
  return (
    // No space forced into two-character Chinese buttons ("搜 索"): the words read as written.
    <ConfigProvider locale={lang === "zh" ? zhCN : enUS} button={{ autoInsertSpace: false }} theme={THEME}>
      {children}
    </ConfigProvider>
  );
}
