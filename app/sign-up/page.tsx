import { Suspense } from "react";
import { AuthForm } from "../_components/auth-form";

export default function SignUpPage() {
  // useSearchParams (the `next` address) needs a Suspense boundary to render on the server.
  return (
    <Suspense>
      <AuthForm mode="signUp" />
    </Suspense>
  );
}
