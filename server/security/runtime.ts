/**
 * The process's access policy, built on first use (after Next has started listening, so the listen address is
 * known) and kept in the process's security record (`process.ts`) so the proxy and route modules share one. Configuration and interfaces are read
 * once: changing who may connect takes a restart, like changing the bind address does.
 */
import os from 'node:os';
import { loadConfig } from '../config';
import { buildExposurePolicy, type ExposurePolicy } from './exposure';
import { securityProcess } from './process';

function interfaceAddresses(): string[] {
  return Object.values(os.networkInterfaces())
    .flat()
    .flatMap((info) => (info && !info.internal ? [info.address] : []));
}

export function getExposurePolicy(): ExposurePolicy {
  const record = securityProcess();
  if (!record.exposure) {
    const config = loadConfig();
    const policy = buildExposurePolicy({
      env: process.env,
      allowedHosts: config.server.allowedHosts,
      interfaceAddresses: interfaceAddresses(),
    });
    for (const warning of policy.warnings) console.warn(`[skillchat] ${warning}`);
    console.log(
      `[skillchat] access: ${policy.exposure}; ${policy.exposed ? 'accounts required (sign in at /login)' : 'no sign-in (loopback only)'}`,
    );
    record.exposure = policy;
  }
  return record.exposure;
}
