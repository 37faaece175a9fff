// A piscina worker (server/gateway/password-hasher.ts): checks a password against an old bcrypt
// hash off the main thread. Plain JavaScript, so it loads the same under tsx, vitest and Next.
import bcrypt from "bcryptjs";

export default function compare({ password, hash }) {
  return bcrypt.compareSync(password, hash);
}
