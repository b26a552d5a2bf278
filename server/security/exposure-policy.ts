/**
 * This server's exposure policy, built on first use (after Next has started listening, so the listen address is
 * known) from the process's one configuration (`appConfig()`), and kept for the process so `proxy.ts` and the route
 * modules, bundled separately, share one. Interfaces are read once: changing who may connect takes a restart, like
 * changing the bind address does.
 */
import os from 'node:os';
import { appConfig } from '../config';
import { processWide } from '../process-wide';
import { buildExposurePolicy, type ExposurePolicy } from './exposure';

function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .flatMap((info) => (info && !info.internal ? [info.address] : []));
}

export function getExposurePolicy(): ExposurePolicy {
  return processWide('exposure', () => {
    const policy = buildExposurePolicy({
      env: process.env,
      allowedHosts: appConfig().server.allowedHosts,
      interfaceAddresses: interfaceAddresses(),
    });
    for (const warning of policy.warnings) console.warn(`[skillchat] ${warning}`);
    console.log(
      `[skillchat] access: ${policy.exposure}; ${policy.exposed ? 'accounts required (sign in at /login)' : 'no sign-in (loopback only)'}`,
    );
    return policy;
  });
}
