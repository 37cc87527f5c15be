/** A private redis-server and the Upstash REST bridge in their own process, so a bench's client CPU is its own. */
import { startRedis } from '../drill/sim/redis-server.js';
import { startUpstashBridge } from '../drill/sim/upstash-bridge.js';

const redis = await startRedis();
const bridge = await startUpstashBridge({ redisPort: redis.port });
process.send?.({ url: bridge.url, token: bridge.token });
process.on('SIGTERM', () => void Promise.all([bridge.close(), redis.stop()]).then(() => process.exit(0)));
