"use client";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { FormEvent } from "react";
import { useMessages } from "../_i18n/client";
import { authErrorText } from "./errors";
import { safeNext } from "./safe-next";
import { useTRPC } from "./trpc";

export function AuthForm({ mode }: { mode: "signIn" | "signUp" }) {
  const t = useMessages();
  const trpc = useTRPC();
  const router = useRouter();
  const next = safeNext(useSearchParams().get("next"));
  const queryClient = useQueryClient();
  const onSuccess = async () => {
    await queryClient.invalidateQueries(trpc.auth.me.queryFilter());
    router.push(next);
  };
  const signUp = useMutation(trpc.auth.signUp.mutationOptions({ onSuccess }));
  const signIn = useMutation(trpc.auth.signIn.mutationOptions({ onSuccess }));
  const active = mode === "signUp" ? signUp : signIn;
  const fieldErrors = active.error?.data?.fieldErrors as Record<string, string[] | undefined> | null | undefined;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    active.mutate({ email: String(form.get("email")), password: String(form.get("password")) });
  };
  const otherHref = `${mode === "signUp" ? "/sign-in" : "/sign-up"}${next === "/" ? "" : `?next=${encodeURIComponent(next)}`}`;

  return (
    <section className="card narrow" aria-labelledby="auth-title">
      <h1 id="auth-title">{mode === "signUp" ? t.signUpTitle : t.signInTitle}</h1>
      <form className="stack" onSubmit={submit}>
        <label>
          {t.email}
          <input name="email" type="email" autoComplete="email" required aria-invalid={fieldErrors?.email ? true : undefined} />
        </label>
        <label>
          {t.password}
          <input
            name="password"
            type="password"
            autoComplete={mode === "signUp" ? "new-password" : "current-password"}
            minLength={8}
            required
            aria-describedby="password-hint"
            aria-invalid={fieldErrors?.password ? true : undefined}
          />
        </label>
        <p id="password-hint" className="muted">
          {t.passwordHint}
        </p>
        {active.isError ? (
          <p className="status bad" role="alert">
            {authErrorText(active.error, t, mode)}
          </p>
        ) : null}
        <button type="submit" disabled={active.isPending || active.isSuccess}>
          {active.isPending || active.isSuccess ? t.signingIn : mode === "signUp" ? t.signUp : t.signIn}
        </button>
      </form>
      <p>
        <Link href={otherHref}>{mode === "signUp" ? t.haveAccount : t.needAccount}</Link>
      </p>
    </section>
  );
}
