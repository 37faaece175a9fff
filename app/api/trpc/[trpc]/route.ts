import { handleTrpcRequest } from "@/server/trpc/http";
import { getServices } from "@/server/composition";

const handler = async (req: Request) => handleTrpcRequest(req, await getServices());

export { handler as GET, handler as POST };
