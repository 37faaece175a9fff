import type { ReactNode } from "react";
import { AntdRegistry } from "@ant-design/nextjs-registry";
import { requestLang } from "@/app/_i18n/server";
import { ADMIN_MESSAGES } from "@/app/_i18n/admin-messages";
import { adminAccess } from "./access";
import { AdminSignIn } from "./_components/admin-sign-in";
import { AntdProvider } from "./_components/antd-provider";
import styles from "./admin.module.css";

export const dynamic = "force-dynamic";

/** Every page under /admin: admins see it; anyone else gets the sign-in form or a 403 notice, never data. */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const [access, lang] = await Promise.all([adminAccess(), requestLang()]);
  const t = ADMIN_MESSAGES[lang];
  if (access.kind === "anonymous") return <AdminSignIn />;
  if (access.kind === "forbidden") {
    return (
      <section className="card" role="alert" aria-label={t.forbidden.label}>
        <h1>{t.forbidden.title}</h1>
        <p>{t.forbidden.body}</p>
      </section>
    );
  }
  // The style registry here, not in the root layout: antd's CSS-in-JS is the console's alone.
  return (
    <AntdRegistry>
      <AntdProvider>
        <div className={`admin ${styles.console}`}>
          <nav className={`admin-nav ${styles.nav}`} aria-label={t.nav.label}>
            <a href="/admin">{t.nav.sales}</a>
            <a href="/admin/orders">{t.nav.orders}</a>
            {/* bull-board is a route handler, not a page: a full page load, not <Link>. */}
            {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
            <a href="/admin/queues">{t.nav.queues}</a>
          </nav>
          {children}
        </div>
      </AntdProvider>
    </AntdRegistry>
  );
}
