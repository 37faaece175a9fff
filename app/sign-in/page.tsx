import { Suspense } from "react";
import { AuthForm } from "../_components/auth-form";

export default function SignInPage() {
  // useSearchParams (the `next` address) needs a Suspense boundary to render on the server.
  return (
    <Suspense>
      <AuthForm mode="signIn" />
    </Suspense>
  );
}
