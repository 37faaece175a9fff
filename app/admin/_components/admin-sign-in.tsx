"use client";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/app/_components/trpc";

/** Sign-in for the console; the session cookie it sets lets the server render the admin pages. */
export function AdminSignIn() {
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
    <section className="card" aria-label="Admin sign-in">
      <h1>Sign in to the admin console</h1>
      <form className="stack" onSubmit={submit}>
        <label>
          Email
          <input type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
        </label>
        <label>
          Password
          <input type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
        </label>
        <button type="submit" disabled={signIn.isPending}>Sign in</button>
        {signIn.error ? <p className="status bad" role="alert">{signIn.error.message}</p> : null}
      </form>
    </section>
  );
}
