/** How a secret reaches a run, in words: a header the proxy adds to requests to its hosts, or an environment variable. */
import type { SecretDelivery } from '@/server/secrets/manage';

export function Delivery({ delivery }: { delivery: SecretDelivery }) {
  return delivery.kind === 'header' ? (
    <span>
      header <code>{delivery.header}</code>, added by the proxy
    </span>
  ) : (
    <span>environment variable</span>
  );
}
