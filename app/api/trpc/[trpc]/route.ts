import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/trpc/root";
import { createContext } from "@/server/trpc/init";
import { getServices } from "@/server/services";

const handler = async (req: Request) => {
  const services = await getServices();
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: ({ resHeaders }) => createContext(services, req.headers, resHeaders),
  });
};

export { handler as GET, handler as POST };
