/** The real edge (Node, real sockets) in front of two copies, for the legs tests. */
import type { AddressInfo } from 'node:net';
import { createEdgeRouter, parseEdgeSettings } from '../../lib/edge/index.js';
import { serveFetchHandler } from '../../lib/edge-node/index.js';
import { SECRET } from '../support/copies.js';

export interface NodeEdge {
  /** Its base URL (no path). */
  url: string;
  close(): void;
}

export async function startNodeEdge(hubUrl: string, cloudUrl: string): Promise<NodeEdge> {
  const router = createEdgeRouter({ settings: parseEdgeSettings({ HUB_URL: hubUrl, CLOUD_URL: cloudUrl, SLACK_SIGNING_SECRET: SECRET }) });
  const edge = serveFetchHandler(router.handle);
  await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(edge.address() as AddressInfo).port}`,
    close: () => {
      edge.closeAllConnections();
      edge.close();
    },
  };
}
