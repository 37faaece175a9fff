"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/app/_components/trpc";
import { useLang } from "@/app/_i18n/client";
import { ADMIN_MESSAGES } from "@/app/_i18n/admin-messages";

/** Sign-in for the console; the session cookie it sets lets the server render the admin pages. */
export function AdminSignIn() {
  const t = ADMIN_MESSAGES[useLang()].signIn;
  const trpc = useTRPC();
  const router = useRouter();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const signIn = useMutation(trpc.auth.signIn.mutationOptions({ onSuccess: () => router.refresh() }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate({ email, password });
  };
  return (
    <section className="card" aria-label={t.label}>
      <h1>{t.title}</h1>
      <form className="stack" onSubmit={submit}>
        <label>
          {t.email}
          <input type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
        </label>
        <label>
          {t.password}
          <input type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
        </label>
        <button type="submit" disabled={signIn.isPending}>
          {t.submit}
        </button>
        {signIn.error ? (
          <p className="status bad" role="alert">
            {signIn.error.message}
          </p>
        ) : null}
      </form>
    </section>
  );
}
