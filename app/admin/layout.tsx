import type { ReactNode } from "react";
import { adminAccess } from "./access";
import { AdminSignIn } from "./_components/admin-sign-in";

export const dynamic = "force-dynamic";

/** Every page under /admin: admins see it; anyone else gets the sign-in form or a 403 notice, never data. */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const access = await adminAccess();
  if (access.kind === "anonymous") return <AdminSignIn />;
  if (access.kind === "forbidden") {
    return (
      <section className="card" role="alert" aria-label="Forbidden">
        <h1>403 — admins only</h1>
        <p>This account cannot open the admin console. Sign in with an admin account.</p>
      </section>
    );
  }
  return (
    <div className="admin">
      <nav className="admin-nav" aria-label="Admin">
        <a href="/admin">Sales</a>
        <a href="/admin/orders">Orders</a>
        <a href="/admin/queues">Queue board</a>
      </nav>
      {children}
    </div>
  );
}
