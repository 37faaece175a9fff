import { handleTrpcRequest } from "@/server/trpc/http";
import { SECKILL_ENDPOINT } from "@/server/platform/endpoints";
import { getServices } from "@/server/composition";

// The purchase path's endpoint, for when no seckill service runs in front (see server/seckill-service/server.ts).
const handler = async (req: Request) => handleTrpcRequest(req, await getServices(), SECKILL_ENDPOINT);

export { handler as GET, handler as POST };
